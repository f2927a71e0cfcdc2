package politeness_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/linksrus/linksrus/crawler/politeness"
)

func Example() {
	ctx := context.Background()
	sched, err := politeness.NewScheduler[string](politeness.Options{MaxInFlight: 2})
	if err != nil {
		panic(err)
	}
	// A robots.txt Crawl-delay, e.g. from robots.Rules.CrawlDelay.
	sched.SetDelay("slow.example", 50*time.Millisecond)
	for _, u := range []string{"/a", "/b", "/c"} {
		_ = sched.Push(ctx, "slow.example", "http://slow.example"+u)
		_ = sched.Push(ctx, "fast.example", "http://fast.example"+u)
	}
	sched.Close() // nothing more to crawl: workers drain, then stop

	var mu sync.Mutex
	fetched := map[string]int{}
	var wg sync.WaitGroup
	for range 4 { // fetch workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lease, err := sched.Next(ctx)
				if err != nil {
					return // politeness.ErrClosed: all done
				}
				lease.Start()
				// ... fetch lease.Value ...
				mu.Lock()
				fetched[lease.Host]++
				mu.Unlock()
				lease.Release()
			}
		}()
	}
	wg.Wait()
	fmt.Println(fetched["fast.example"], fetched["slow.example"])
	// Output: 3 3
}

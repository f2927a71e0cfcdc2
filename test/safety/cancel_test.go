package safety

import (
	"context"
	"math/rand/v2"
	"net/netip"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/linkgraph"
	lgmemory "github.com/linksrus/linksrus/linkgraph/memory"
	timemory "github.com/linksrus/linksrus/textindex/memory"
)

// cancelIterations is how many crawls are cancelled at a random moment.
const cancelIterations = 50

// TestCancelAtRandomMoments cancels crawler.Crawl at a random moment of a
// crawl of a slow site, many times over, and checks after every run that
// Crawl returned promptly, that every URL was reported exactly once, and
// that no goroutine of the crawl is left.
func TestCancelAtRandomMoments(t *testing.T) {
	site := newTestSite(t, 60, 2*time.Millisecond)
	// The site's listener and the test's own goroutines are not the crawl's.
	baseline := goleak.IgnoreCurrent()

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 8))
	detector := privnet.New(netip.MustParsePrefix("127.0.0.0/8"))

	graph := lgmemory.New()
	defer graph.Close()
	index := timemory.New()
	defer index.Close()
	links := make([]*linkgraph.Link, len(site.pages()))
	for i, u := range site.pages() {
		links[i] = &linkgraph.Link{URL: u}
	}
	if err := graph.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	list := make([]linkgraph.Link, len(links))
	for i, l := range links {
		list[i] = *l
	}

	var cancelledEarly, finished int
	for iter := range cancelIterations {
		var mu sync.Mutex
		reported := make(map[string]int)
		c, err := crawler.NewCrawler(crawler.Config{
			FetchOptions: crawler.FetchOptions{
				PrivateNetworkDetector: detector,
				Workers:                1 + rng.IntN(8),
				FetchTimeout:           5 * time.Second,
			},
			Graph: graph,
			Index: index,
			OnOutcome: func(o crawler.Outcome) {
				mu.Lock()
				reported[o.URL]++
				mu.Unlock()
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		// Between cancelling before the first page and after the last.
		after := time.Duration(rng.Int64N(int64(100 * time.Millisecond)))
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(after, cancel)
		start := time.Now()
		n, err := c.Crawl(ctx, &sliceIterator{links: list})
		returned := time.Since(start)
		timer.Stop()
		cancelled := ctx.Err() != nil
		cancel()

		if cancelled && returned-after > 2*time.Second {
			t.Errorf("iteration %d: Crawl returned %v after the cancel", iter, returned-after)
		}
		if err != nil && !cancelled {
			t.Errorf("iteration %d: Crawl: %v without a cancel", iter, err)
		}
		if cancelled {
			cancelledEarly++
		} else {
			finished++
		}
		mu.Lock()
		total := 0
		for u, k := range reported {
			if k != 1 {
				t.Errorf("iteration %d: %s reported %d times", iter, u, k)
			}
			total += k
		}
		mu.Unlock()
		if total > len(list) || n > total {
			t.Errorf("iteration %d: %d crawled, %d reported of %d links", iter, n, total, len(list))
		}
		if !cancelled && (total != len(list) || n != len(list)) {
			t.Errorf("iteration %d: uncancelled crawl reported %d and crawled %d of %d", iter, total, n, len(list))
		}
		if err := goleak.Find(baseline); err != nil {
			t.Fatalf("iteration %d (cancel after %v, %d crawled): %v", iter, after, n, err)
		}
	}
	t.Logf("%d crawls cancelled mid-way, %d finished first; %d page requests served", cancelledEarly, finished, site.fetched())
	if cancelledEarly == 0 {
		t.Error("no crawl was cancelled before it finished: the site is too fast for the test")
	}
}

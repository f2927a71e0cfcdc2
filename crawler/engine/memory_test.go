package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/linkgraph/bolt"
)

// peakHeap samples the live heap until stop is called, and returns the
// peak then.
func peakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-t.C:
			case <-done:
				return
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

// A large synthetic site crawled into the embedded bolt graph with the
// in-memory frontier bounded: the peak live heap stays under a bound that
// does not grow with the site, and every page is fetched once.
// LINKSRUS_ENGINE_LINKS=1000000 runs the full-size version (a few minutes
// on 2 cores); by default a 20,000-page site with the frontier bounded to
// 1,000 links, so that most links pass through the spill file.
func TestBoundedMemoryLargeSite(t *testing.T) {
	// The bounds leave room above what was measured: 20 MiB for the small
	// site under -race, 115 MiB for a million pages (of which the test's
	// own hit counters and the seen-set of a million links are a third).
	pages, maxQueued, heapBound := 20_000, 1_000, uint64(64<<20)
	if v := os.Getenv("LINKSRUS_ENGINE_LINKS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatal(err)
		}
		pages, maxQueued, heapBound = n, 50_000, 160<<20
	}
	site := newTreeSite(pages, 10)
	h := startHost(t, 40, nil, site)
	g, err := bolt.Open(filepath.Join(t.TempDir(), "graph.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	e, err := engine.New(engine.Options{Graph: g, Detector: loopback(), PerHost: 32, MaxQueued: maxQueued,
		IgnoreRobots: true, SpillDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	stop := peakHeap()
	start := time.Now()
	sum, err := e.Run(context.Background(), h.URL+"/0")
	peak := stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pages in %v, peak live heap %.1f MiB (bound %d MiB), frontier bound %d links",
		sum.Pages, time.Since(start).Round(time.Millisecond), float64(peak)/(1<<20), heapBound>>20, maxQueued)
	if sum.Pages != int64(pages) {
		t.Errorf("crawled %d pages, want %d", sum.Pages, pages)
	}
	site.fetchedOnce(t)
	if peak > heapBound {
		t.Errorf("peak live heap %d MiB > %d MiB", peak>>20, heapBound>>20)
	}
}

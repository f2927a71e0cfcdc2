package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/linkgraph/bolt"
)

// peakHeap samples the heap's objects (the live ones and those dead but
// not yet swept: about twice the live heap just before a collection, with
// GOGC=100) until stop is called, and returns the peak then.
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

// liveHeap collects garbage and returns the live heap.
func liveHeap() uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// liveSampler measures the live heap of a run at given numbers of
// outcomes, from the run's OnOutcome, and with LINKSRUS_HEAPPROFILE=path
// writes a heap profile there too (path.N for N outcomes), to compare with
// go tool pprof -top -inuse_space.
type liveSampler struct {
	t       *testing.T
	profile string
	n       atomic.Int64
	mu      sync.Mutex
	live    map[int64]uint64 // by the outcomes measured at; 0 until then
}

func newLiveSampler(t *testing.T, at ...int64) *liveSampler {
	s := &liveSampler{t: t, profile: os.Getenv("LINKSRUS_HEAPPROFILE"), live: map[int64]uint64{}}
	for _, n := range at {
		s.live[n] = 0
	}
	return s
}

func (s *liveSampler) outcome(crawler.Outcome) {
	n := s.n.Add(1)
	s.mu.Lock()
	_, ok := s.live[n]
	s.mu.Unlock()
	if !ok {
		return
	}
	live := liveHeap()
	if s.profile != "" {
		if err := writeHeapProfile(fmt.Sprintf("%s.%d", s.profile, n)); err != nil {
			s.t.Error(err)
		}
	}
	s.mu.Lock()
	s.live[n] = live
	s.mu.Unlock()
}

// at returns the live heap measured at n outcomes.
func (s *liveSampler) at(n int64) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live[n]
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// A large synthetic site crawled into the embedded bolt graph with the
// in-memory frontier bounded: the peak heap stays under a bound that does
// not grow with the site, and every page is fetched once.
// LINKSRUS_ENGINE_LINKS=1000000 runs the full-size version (under a minute
// on 2 cores); by default a 20,000-page site with the frontier bounded to
// 1,000 links, so that most links pass through the spill file. The live
// heap at each quarter of the run is logged (and profiled, with
// LINKSRUS_HEAPPROFILE).
func TestBoundedMemoryLargeSite(t *testing.T) {
	// The bounds leave room above what was measured: 9-14 MiB for the
	// small site, 100-108 MiB for a million pages (a live heap of 43-49
	// MiB, of which the frontier's 50,000 links are 12, the seen-set of a
	// million links 16, and the test's own hit counters 8; the peak heap
	// grows by about 55 bytes a page from 250,000 pages to a million,
	// twice the seen-set's 16 and the counters' 8).
	pages, maxQueued, heapBound := 20_000, 1_000, uint64(32<<20)
	if v := os.Getenv("LINKSRUS_ENGINE_LINKS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatal(err)
		}
		pages, maxQueued, heapBound = n, 50_000, 128<<20
	}
	site := newTreeSite(pages, 10)
	h := startHost(t, 40, nil, site)
	g, err := bolt.Open(t.Context(), filepath.Join(t.TempDir(), "graph.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	quarters := []int64{int64(pages / 4), int64(pages / 2), int64(pages * 3 / 4), int64(pages)}
	live := newLiveSampler(t, quarters...)
	e, err := engine.New(engine.Options{
		Graph:        g,
		FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback()},
		PerHost:      32,
		MaxQueued:    maxQueued,
		IgnoreRobots: true,
		SpillDir:     t.TempDir(),
		OnOutcome:    live.outcome,
	})
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
	for _, n := range quarters {
		t.Logf("live heap at %d outcomes: %.1f MiB", n, mib(live.at(n)))
	}
	t.Logf("%d pages in %v, peak heap %.1f MiB (bound %d MiB), frontier bound %d links",
		sum.Pages, time.Since(start).Round(time.Millisecond), mib(peak), heapBound>>20, maxQueued)
	if sum.Pages != int64(pages) {
		t.Errorf("crawled %d pages, want %d", sum.Pages, pages)
	}
	site.fetchedOnce(t)
	if peak > heapBound {
		t.Errorf("peak heap %d MiB > %d MiB", peak>>20, heapBound>>20)
	}
}

// chainSite serves pages /0 .. /n-1 in width chains: page 0 links to pages
// 1 .. width, and page i to page i+width and back to page 0, as a site's
// navigation would. A crawl finds one new link a page, so the links it
// has found grow with the pages it has crawled.
type chainSite struct{ n, width int }

func (s chainSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var i int
	if _, err := fmt.Sscanf(r.URL.Path, "/%d", &i); err != nil || i < 0 || i >= s.n {
		http.NotFound(w, r)
		return
	}
	body := `<a href="/0">home</a>`
	if i == 0 {
		for c := 1; c <= s.width && c < s.n; c++ {
			body += fmt.Sprintf(` <a href="/%d">%d</a>`, c, c)
		}
	} else if next := i + s.width; next < s.n {
		body += fmt.Sprintf(` <a href="/%d">next</a>`, next)
	}
	htmlPage(w, body)
}

// pausable serves h but for while it is paused (mu held): requests wait
// then.
type pausable struct {
	mu sync.RWMutex
	h  http.Handler
}

func (p *pausable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	p.h.ServeHTTP(w, r)
}

// settledLiveHeap pauses the site until the crawl has reported nothing for
// a while (what it had fetched is stored, and the next requests wait), and
// returns the live heap then and the outcomes reported.
func settledLiveHeap(site *pausable, outcomes *atomic.Int64) (live uint64, n int64) {
	site.mu.Lock()
	defer site.mu.Unlock()
	for n = outcomes.Load(); ; {
		time.Sleep(250 * time.Millisecond)
		if m := outcomes.Load(); m != n {
			n = m
			continue
		}
		break
	}
	live = ^uint64(0)
	for range 3 {
		live = min(live, liveHeap())
	}
	return live, n
}

// The live heap of a crawl does not grow with the pages it crawls nor the
// links it finds once its seen-set is full (MaxSeen below the links of the
// run): the seen-set is the one part of a run that grows with its links
// (TestSeenSetCost checks its cost), and the caches of known link IDs,
// bounded on their own (TestKnownLinksBounded), learn only the links it
// records. The heap is measured at a quarter and at three quarters of the
// run, the site paused each time until the crawl settles, so that both
// measure the same work in flight: a request per host slot, and no page
// being stored.
func TestMemoryGrowthPerLink(t *testing.T) {
	const pages, width = 20_000, 256
	site := &pausable{h: chainSite{n: pages, width: width}}
	h := startHost(t, 44, nil, site)
	g, err := bolt.Open(t.Context(), filepath.Join(t.TempDir(), "graph.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var outcomes atomic.Int64
	e, err := engine.New(engine.Options{
		Graph:          g,
		FetchOptions:   crawler.FetchOptions{PrivateNetworkDetector: loopback()},
		PerHost:        32,
		MaxSeen:        2_000,
		IgnoreRobots:   true,
		IgnoreSitemaps: true,
		SpillDir:       t.TempDir(),
		OnOutcome:      func(crawler.Outcome) { outcomes.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		sum *engine.Summary
		err error
	}
	ran := make(chan result, 1)
	go func() {
		sum, err := e.Run(context.Background(), h.URL+"/0")
		ran <- result{sum, err}
	}()
	var live [2]uint64
	var at [2]int64
	for i, when := range []int64{pages / 4, pages * 3 / 4} {
		for outcomes.Load() < when {
			select {
			case res := <-ran:
				t.Fatalf("the run ended after %d outcomes: %v", outcomes.Load(), res.err)
			case <-time.After(5 * time.Millisecond):
			}
		}
		live[i], at[i] = settledLiveHeap(site, &outcomes)
	}
	res := <-ran
	if res.err != nil {
		t.Fatal(res.err)
	}
	if res.sum.Pages != pages || res.sum.Errors != 0 {
		t.Fatalf("crawled %d pages with %d errors, want %d and 0: %v", res.sum.Pages, res.sum.Errors, pages, res.sum.Reasons)
	}
	perLink := (float64(live[1]) - float64(live[0])) / float64(at[1]-at[0])
	t.Logf("live heap %.3f MiB at %d pages, %.3f MiB at %d: %+.1f bytes a page and link", mib(live[0]), at[0], mib(live[1]), at[1], perLink)
	if perLink > 12 {
		t.Errorf("the live heap grows by %.1f bytes a page and link found, want none (12 at most, for the graph's own growth)", perLink)
	}
}

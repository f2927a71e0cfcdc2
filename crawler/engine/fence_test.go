package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/internal/pgtest"
)

// TestLeaseEndCutsTheHostsRequests: a process that can no longer renew
// its lease (its database is out of reach; the site is not) ends its
// request to the host, here a body that drips for far longer than the
// lease, when its lease may have ended, by its own clock; the page is not
// reported as failed and stays queued. The process that takes the host
// over starts its first request after that cut and the host's delay, with
// no overlap, and crawls the page.
func TestLeaseEndCutsTheHostsRequests(t *testing.T) {
	dsn := pgtest.Database(t, "engine")
	const (
		ttl   = 600 * time.Millisecond
		delay = 100 * time.Millisecond
		drip  = 8 * time.Second
	)
	log := &requestLog{}
	slowStarted := make(chan struct{})
	var slowOnce sync.Once
	var mu sync.Mutex
	var cutAt time.Time // when A's dripping response was cut
	host := startHost(t, 5, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			htmlPage(w, `<a href="/slow">slow</a> <a href="/1">1</a> <a href="/2">2</a>`)
		case "/slow":
			if r.Header.Get("X-Worker") != "A" {
				htmlPage(w, "slow, but not for B")
				return
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body>")
			w.(http.Flusher).Flush()
			slowOnce.Do(func() { close(slowStarted) })
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for end := time.Now().Add(drip); time.Now().Before(end); {
				select {
				case <-r.Context().Done():
					mu.Lock()
					cutAt = time.Now()
					mu.Unlock()
					return
				case <-tick.C:
					fmt.Fprint(w, "x")
					w.(http.Flusher).Flush()
				}
			}
		case "/1", "/2":
			htmlPage(w, "leaf")
		default:
			http.NotFound(w, r)
		}
	}))

	options := func(worker string, q *dyingQueue, g engine.Graph) engine.Options {
		o := sharedOptions(t, dsn, worker, q, g)
		o.PerHost, o.Delay = 1, delay
		o.FetchTimeout = 2 * drip
		o.IgnoreSitemaps = true
		o.Shared.LeaseTTL = ttl
		return o
	}
	gA, gB := openShared(t, dsn), openShared(t, dsn)
	qA := &dyingQueue{Queue: gA.WorkQueue()}
	oA := options("A", qA, gA)
	var outMu sync.Mutex
	var outA []crawler.Outcome
	oA.OnOutcome = func(o crawler.Outcome) {
		outMu.Lock()
		outA = append(outA, o)
		outMu.Unlock()
	}
	eA, err := engine.New(oA)
	if err != nil {
		t.Fatal(err)
	}
	ctxA, cancelA := context.WithCancel(context.Background())
	defer cancelA()
	runA, err := eA.Start(ctxA, host.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-slowStarted:
	case <-time.After(10 * time.Second):
		t.Fatal("A never asked for /slow")
	}
	qA.kill() // A's database is gone; the site is not
	killed := time.Now()

	eB, err := engine.New(options("B", &dyingQueue{Queue: gB.WorkQueue()}, gB))
	if err != nil {
		t.Fatal(err)
	}
	sumB, err := eB.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cancelA()
	_, _ = runA.Wait()

	mu.Lock()
	cut := cutAt
	mu.Unlock()
	if cut.IsZero() {
		t.Fatalf("A's /slow was never cut (ran its %v)", drip)
	}
	if d := cut.Sub(killed); d > ttl+150*time.Millisecond {
		t.Errorf("A's /slow cut %v after its last chance to renew, want within the %v lease", d, ttl)
	}
	log.checkPoliteness(t, host.Host, 1, delay)
	var slowByB bool
	for _, r := range log.of(host.Host) {
		if r.by == "B" && r.path == "/slow" {
			slowByB = true
		}
	}
	if !slowByB {
		t.Errorf("B never fetched /slow (B: %d pages, %v)", sumB.Pages, sumB.Reasons)
	}
	outMu.Lock()
	defer outMu.Unlock()
	for _, o := range outA {
		if o.Reason.IsError() {
			t.Errorf("A reported %s as %v (%v): it failed nothing, its lease ended", o.URL, o.Reason, o.Err)
		}
	}
}

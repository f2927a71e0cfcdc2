package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	graphmem "github.com/linksrus/linksrus/linkgraph/memory"
)

// bfsFrontier is a whole recursive crawl's frontier in a few dozen lines:
// the seven methods of crawler.Frontier and nothing else. It hands out
// the links it was seeded with and those the pages follow (Found), each
// URL once, breadth first; it keeps at most one request in flight per
// host (Begin, Park); it knows the IDs of the links it has claimed
// (KnownLinkID); it ends when nothing is queued, parked or in flight.
type bfsFrontier struct {
	mu       sync.Mutex
	queue    []*crawler.Payload
	parked   []*crawler.Payload
	claimed  map[string]uuid.UUID
	busy     map[string]bool
	inFlight int
	wake     chan struct{}
}

func newBFSFrontier(seeds ...string) *bfsFrontier {
	f := &bfsFrontier{claimed: map[string]uuid.UUID{}, busy: map[string]bool{}, wake: make(chan struct{}, 1)}
	for _, s := range seeds {
		f.queue = append(f.queue, crawler.NewPayload(uuid.Nil, s, time.Time{}))
		f.claimed[s] = uuid.Nil
	}
	return f
}

func (f *bfsFrontier) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

func (f *bfsFrontier) Next(ctx context.Context, starved func()) (*crawler.Payload, error) {
	for {
		f.mu.Lock()
		var p *crawler.Payload
		switch {
		case len(f.parked) > 0:
			p, f.parked = f.parked[0], f.parked[1:]
		case len(f.queue) > 0:
			p, f.queue = f.queue[0], f.queue[1:]
			f.inFlight++
		case f.inFlight == 0:
			f.mu.Unlock()
			return nil, nil
		}
		f.mu.Unlock()
		if p != nil {
			return p, nil
		}
		starved() // the links we wait for may sit in a store batch
		select {
		case <-ctx.Done():
			return nil, nil
		case <-f.wake:
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (f *bfsFrontier) Admit(_ context.Context, _ *crawler.Payload, u *url.URL, redirect bool) error {
	if !redirect {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.claimed[u.String()]; ok {
		return crawler.Skip(crawler.ReasonDuplicate, fmt.Errorf("%s is crawled on its own", u))
	}
	f.claimed[u.String()] = uuid.Nil
	return nil
}

func (f *bfsFrontier) Begin(_ *crawler.Payload, host string) (func(), bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.busy[host] {
		return nil, false
	}
	f.busy[host] = true
	return func() {
		f.mu.Lock()
		f.busy[host] = false
		f.mu.Unlock()
		f.poke()
	}, true
}

func (f *bfsFrontier) Park(p *crawler.Payload, _ string, _ time.Time) {
	f.mu.Lock()
	f.parked = append(f.parked, p)
	f.mu.Unlock()
	f.poke()
}

func (f *bfsFrontier) KnownLinkID(u string) (uuid.UUID, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id, ok := f.claimed[u]
	return id, ok && id != uuid.Nil
}

func (f *bfsFrontier) Found(_ context.Context, found []crawler.Found) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fp := range found {
		for _, l := range fp.Links {
			if _, ok := f.claimed[l.URL]; !ok {
				f.claimed[l.URL] = l.ID
				f.queue = append(f.queue, crawler.NewPayload(l.ID, l.URL, l.RetrievedAt))
			}
		}
	}
	return nil
}

func (f *bfsFrontier) Done(crawler.Outcome) {
	f.mu.Lock()
	f.inFlight--
	f.mu.Unlock()
	f.poke()
}

// A frontier of the caller's own, the seven methods of the contract and
// nothing more, drives a recursive crawl of a loopback site through the
// crawler: every page reached once, redirects included, one request at a
// time to the host, the links stored in the graph.
func TestOwnFrontierCrawlsSite(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	inFlight, most := 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		defer func() {
			mu.Lock()
			inFlight--
			mu.Unlock()
		}()
		time.Sleep(time.Millisecond)
		var n int
		switch {
		case r.URL.Path == "/moved":
			http.Redirect(w, r, "/p/3", http.StatusFound)
			return
		case r.URL.Path == "/":
		default:
			if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &n); err != nil || n >= 20 {
				http.NotFound(w, r)
				return
			}
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<title>page %d</title><a href="/p/%d">next</a> <a href="/p/%d">double</a> <a href="/moved">moved</a>`, n, n+1, (2*n+1)%20)
	}))
	defer srv.Close()

	g := graphmem.New()
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.0/8")),
			Workers:                4,
		},
		Graph: g,
	})
	if err != nil {
		t.Fatal(err)
	}
	f := newBFSFrontier(srv.URL + "/")
	n, err := c.CrawlFrom(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var twice []string
	for path, h := range hits {
		if h != 1 {
			twice = append(twice, fmt.Sprintf("%s %d", path, h))
		}
	}
	sort.Strings(twice)
	// Fetched: "/", /moved, /p/1 to /p/19 (no page links to /p/0) and
	// /p/20, which is missing. Crawled: 20 pages, one of them /p/3, which
	// is either reached through /moved or crawled on its own, whichever
	// claims it first, and fetched once either way.
	if n != 20 || len(hits) != 22 || len(twice) != 0 || most != 1 {
		t.Errorf("crawled %d pages, %d paths fetched (more than once: %v), at most %d requests at once; want 20, 22, none, 1", n, len(hits), twice, most)
	}
	if id, ok := f.KnownLinkID(srv.URL + "/p/19"); !ok {
		t.Error("the frontier was never told of /p/19's ID")
	} else if l, err := g.FindLink(id); err != nil || l.RetrievedAt.IsZero() {
		t.Errorf("/p/19 in the graph: %+v, %v; want it stored and retrieved", l, err)
	}
}

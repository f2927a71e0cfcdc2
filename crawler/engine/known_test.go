package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/memory"
)

// upsertCountingGraph is a memory graph that counts how often each URL is
// upserted.
type upsertCountingGraph struct {
	*memory.Graph
	mu       sync.Mutex
	upserted map[string]int
}

func (g *upsertCountingGraph) UpsertLinks(links []*linkgraph.Link) error {
	g.mu.Lock()
	for _, l := range links {
		g.upserted[l.URL]++
	}
	g.mu.Unlock()
	return g.Graph.UpsertLinks(links)
}

// A link out of scope is decided on once: the pages found to have it after
// that neither upsert it again nor count it again in the summary. Every
// page of the chain links to the same two other hosts, each page is its
// own store batch (the decision does not rest on the batch).
func TestOutOfScopeLinksDecidedOnce(t *testing.T) {
	const pages = 12
	h := startHost(t, 41, &requestLog{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/%d", &i); err != nil || i >= pages {
			http.NotFound(w, r)
			return
		}
		next := ""
		if i+1 < pages {
			next = fmt.Sprintf(`<a href="/%d">next</a>`, i+1)
		}
		// The links elsewhere come first: a page's links are followed
		// in order, so they are decided on before the next page, whose
		// batch could be stored alongside, is queued.
		htmlPage(w, `<a href="http://127.0.0.42:1/away">away</a> <a href="http://127.0.0.43:1/">there</a>`+next)
	}))
	g := &upsertCountingGraph{Graph: memory.New(), upserted: map[string]int{}}
	e, err := engine.New(engine.Options{Graph: g, FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback()}, StoreBatchSize: 1, IgnoreSitemaps: true})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.Run(context.Background(), h.URL+"/0")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pages != pages || sum.Errors != 0 {
		t.Errorf("crawled %d pages with %d errors, want %d and 0: %v", sum.Pages, sum.Errors, pages, sum.Reasons)
	}
	if n := sum.Reasons["scope: other host"]; n != 2 {
		t.Errorf("%d links counted out of scope, want 2 (each counted once): %v", n, sum.Reasons)
	}
	for _, u := range []string{"http://127.0.0.42:1/away", "http://127.0.0.43:1/"} {
		if n := g.upserted[u]; n != 1 {
			t.Errorf("%s upserted %d times, want once", u, n)
		}
	}
	// Every page still links to both: the edges are there.
	it, err := g.Edges(uuid.Nil, uuid.Max, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	away := 0
	for it.Next() {
		if l, err := g.FindLink(it.Edge().Dst); err == nil && l.URL == "http://127.0.0.42:1/away" {
			away++
		}
	}
	if away != pages {
		t.Errorf("%d edges to the other host's link, want %d", away, pages)
	}
}

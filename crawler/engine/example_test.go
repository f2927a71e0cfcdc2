package engine_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"time"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/linkgraph/postgres"
	textmemory "github.com/linksrus/linksrus/textindex/memory"
)

// A service crawling a site: a graph and an index, the options it cares
// about, and Run. Everything else (robots.txt, two requests at most per
// host, the seeds' host only) is the engine's polite default.
func Example() {
	site := exampleSite() // a small site on 127.0.0.1
	defer site.Close()

	graph, index := memory.New(), textmemory.New()
	e, err := engine.New(engine.Options{
		Graph:    graph,
		Index:    index,
		MaxPages: 100,
		FetchOptions: crawler.FetchOptions{
			// The site is on loopback, which the crawler refuses by default.
			PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.0/8")),
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	sum, err := e.Run(context.Background(), site.URL+"/")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("crawled %d pages, %d errors\n", sum.Pages, sum.Errors)
	// Output: crawled 3 pages, 1 errors
}

// exampleSite serves three linked pages and a broken link.
func exampleSite() *httptest.Server {
	pages := map[string]string{
		"/":           `<a href="/a">a</a> <a href="/b">b</a>`,
		"/a":          `<a href="/b">b</a> <a href="/gone">gone</a>`,
		"/b":          `<a href="/">home</a>`,
		"/robots.txt": "User-agent: *\nAllow: /\n",
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path != "/robots.txt" {
			w.Header().Set("Content-Type", "text/html")
		}
		fmt.Fprint(w, body)
	}))
}

// Processes on several machines crawling one site together: each runs
// this with the same database and seeds. Hosts are leased to one process
// at a time, so the per-host limits hold across all of them; a process
// may join late, or die, and the others carry on. The PostgreSQL graph
// keeps the shared queue (it is a workqueue.Provider), so Shared needs no
// Queue.
func ExampleShared() {
	ctx := context.Background()
	graph, err := postgres.Open(ctx, "postgres://crawler@db.internal/linksrus", postgres.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer graph.Close()
	e, err := engine.New(engine.Options{
		Graph:   graph,
		PerHost: 2,
		Delay:   time.Second,
		Shared:  &engine.Shared{LeaseTTL: 30 * time.Second},
	})
	if err != nil {
		log.Fatal(err)
	}
	sum, err := e.Run(ctx, "https://example.com/")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("this process crawled %d pages\n", sum.Pages)
}

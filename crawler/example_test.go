package crawler_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/linkgraph"
	graphmem "github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/pipeline"
	indexmem "github.com/linksrus/linksrus/textindex/memory"
)

// exampleSite serves two pages and a picture on loopback.
func exampleSite() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, `<title>Home</title><a href="/about">About us</a> <a href="/logo.png">logo</a>`)
		case "/about":
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, `<title>About</title><p>We crawl.</p>`)
		default:
			http.NotFound(w, r)
		}
	}))
}

// Crawl the links of a graph into the graph itself and a text index,
// reporting what happened to each URL.
func ExampleCrawler_Crawl() {
	site := exampleSite()
	defer site.Close()

	graph, index := graphmem.New(), indexmem.New()
	for _, path := range []string{"/", "/about", "/missing"} {
		if err := graph.UpsertLink(&linkgraph.Link{URL: site.URL + path}); err != nil {
			panic(err)
		}
	}

	var mu sync.Mutex
	var report []string
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			// Only for this example: the site is on loopback, which a
			// crawler of the public web must never reach.
			PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.1/32")),
		},
		Graph: graph,
		Index: index,
		OnOutcome: func(o crawler.Outcome) {
			mu.Lock()
			defer mu.Unlock()
			report = append(report, fmt.Sprintf("%-9s %-12s status=%d links=%d",
				strings.TrimPrefix(o.URL, site.URL), o.Reason, o.StatusCode, o.Links))
		},
	})
	if err != nil {
		panic(err)
	}
	// Every link retrieved before now: here, all of them.
	it, err := graph.Links(uuid.Nil, uuid.Nil, time.Now())
	if err != nil {
		panic(err)
	}
	defer it.Close()

	n, err := c.Crawl(context.Background(), it)
	fmt.Println("pages crawled:", n, err)
	sort.Strings(report)
	for _, line := range report {
		fmt.Println(line)
	}
	// Output:
	// pages crawled: 2 <nil>
	// /         crawled      status=200 links=1
	// /about    crawled      status=200 links=0
	// /missing  http-status  status=404 links=0
}

// Assemble a pipeline of your own from the crawler's stages: here the pages
// go to a processor that collects titles instead of to the stores.
func ExampleStages() {
	site := exampleSite()
	defer site.Close()

	var mu sync.Mutex
	var titles []string
	collect := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		page := p.(*crawler.Payload) // valid until the pipeline marks it processed
		mu.Lock()
		titles = append(titles, page.Title)
		mu.Unlock()
		return p, nil
	})
	detector := privnet.New(netip.MustParsePrefix("127.0.0.1/32"))
	client := &http.Client{Transport: detector.Transport()}
	defer client.CloseIdleConnections()
	stages, err := crawler.Stages(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: detector,
			URLGetter:              client,
		},
		Processors: []pipeline.Processor{collect},
	})
	if err != nil {
		panic(err)
	}

	links := []*linkgraph.Link{{ID: uuid.New(), URL: site.URL + "/"}, {ID: uuid.New(), URL: site.URL + "/about"}}
	sink := new(crawler.Sink)
	frontier := crawler.NewLinkFrontier(&sliceIterator{links: links})
	defer frontier.Close()
	err = pipeline.New(stages...).Process(context.Background(), crawler.NewSource(frontier, nil, nil), sink)
	sort.Strings(titles)
	fmt.Println(sink.Count(), titles, err)
	// Output:
	// 2 [About Home] <nil>
}

// A crawl's report tells failures from skips by the outcome's reason.
func ExampleReason_IsError() {
	for _, r := range []crawler.Reason{crawler.ReasonCrawled, crawler.ReasonRobots, crawler.ReasonHTTPStatus, crawler.ReasonRobotsUnreachable} {
		fmt.Println(r, r.IsError())
	}
	// Output:
	// crawled false
	// robots false
	// http-status true
	// robots-unreachable true
}

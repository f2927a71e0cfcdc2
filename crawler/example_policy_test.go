package crawler_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/crawler/urlnorm"
	"github.com/linksrus/linksrus/linkgraph"
)

// Links are stored in canonical form; tracking parameters and parameter
// order can be normalised away too.
func ExampleNewLinkExtractorWithOptions() {
	e := crawler.NewLinkExtractorWithOptions(nil, crawler.LinkOptions{
		Normalization: urlnorm.Options{SortQuery: true, StripTracking: true},
	})
	p := crawler.NewPayload(uuid.New(), "https://example.com/blog/", time.Time{})
	defer p.MarkAsProcessed()
	p.Body = append(p.Body, `
		<a href="HTTPS://Example.COM:443/blog/../news/?utm_source=feed&b=2&a=1#top">news</a>
		<a href="/news/?a=1&b=2&fbclid=abc">the same page</a>
		<a href="post%2d1?">a post</a>`...)
	if _, err := e.Process(context.Background(), p); err != nil {
		panic(err)
	}
	for _, l := range p.Links {
		fmt.Println(l)
	}
	// Output:
	// https://example.com/news/?a=1&b=2
	// https://example.com/blog/post-1
}

// A crawl whose fetch stage retries a busy server (FetchOptions.Retry),
// skips non-HTML after a HEAD request (FetchOptions.HeadFirst) and refuses
// redirects out of its scope (a Gate).
func ExampleConfig_fetchPolicies() {
	var busy atomic.Bool
	busy.Store(true)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			if busy.Swap(false) {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, `<title>Home</title>`)
		case "/download":
			w.Header().Set("Content-Type", "application/zip")
			_, _ = io.WriteString(w, strings.Repeat("PK", 1<<10))
		case "/elsewhere":
			http.Redirect(w, r, "/admin/", http.StatusFound)
		}
	}))
	defer site.Close()

	// Only for this example: the site is on loopback.
	detector := privnet.New(netip.MustParsePrefix("127.0.0.1/32"))
	client := crawler.NewURLGetter(detector)
	defer client.CloseIdleConnections()
	outcomes := make(chan crawler.Outcome, 3)
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: detector,
			URLGetter:              client,
			Retry:                  crawler.RetryPolicy{BaseDelay: 10 * time.Millisecond},
			HeadFirst:              true,
			Workers:                1,
		},
		Gates: []crawler.Gate{crawler.GateFunc(func(_ context.Context, u *url.URL) error {
			if strings.HasPrefix(u.Path, "/admin/") {
				return crawler.Skip(crawler.ReasonScope, nil)
			}
			return nil
		})},
		OnOutcome: func(o crawler.Outcome) { outcomes <- o },
	})
	if err != nil {
		panic(err)
	}
	var links []*linkgraph.Link
	for _, path := range []string{"/", "/download", "/elsewhere"} {
		links = append(links, &linkgraph.Link{ID: uuid.New(), URL: site.URL + path})
	}
	if _, err := c.Crawl(context.Background(), &sliceIterator{links: links}); err != nil {
		panic(err)
	}
	close(outcomes)
	got := map[string]string{}
	for o := range outcomes {
		got[strings.TrimPrefix(o.URL, site.URL)] = fmt.Sprintf("%v (status %d)", o.Reason, o.StatusCode)
	}
	for _, path := range []string{"/", "/download", "/elsewhere"} {
		fmt.Println(path, got[path])
	}
	// Output:
	// / crawled (status 200)
	// /download content-type (status 200)
	// /elsewhere scope (status 302)
}

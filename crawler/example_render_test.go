package crawler_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/linkgraph"
)

// menuRenderer stands for a browser: it runs the shell's "script" by
// adding the menu the script would build. Package engine's crawls use
// package render's headless Chromium.
type menuRenderer struct{}

func (menuRenderer) Render(_ context.Context, pageURL string, body []byte) (*crawler.Rendered, error) {
	html := append([]byte(nil), body...)
	html = append(html, `<nav><a href="/guide">Guide</a></nav>`...)
	// The script also moved the page to /start (history.pushState).
	start := strings.TrimSuffix(pageURL, "/") + "/start"
	return &crawler.Rendered{HTML: html, Moved: []string{start}, Settled: true}, nil
}

// Crawl a page built by its script: with a Renderer, the page's links are
// those of the rendered document.
func ExampleConfig_renderer() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, `<div id="app"></div><script src="/app.js"></script>`)
	}))
	defer site.Close()

	var mu sync.Mutex
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.1/32")), // the example's site
		},
		Renderer: menuRenderer{},
		Render:   crawler.RenderAuto, // an empty mount point and a script: rendered
		OnOutcome: func(o crawler.Outcome) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Printf("rendered %v, %d link(s)\n", o.Render.Rendered, o.Links)
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	links := []*linkgraph.Link{{ID: uuid.New(), URL: site.URL + "/"}}
	if _, err := c.Crawl(context.Background(), &sliceIterator{links: links}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// rendered true, 2 link(s)
}

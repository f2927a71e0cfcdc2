package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/linkgraph/memory"
)

// A redirect is not a hop, and the links of a page reached through one are
// one hop deeper than the link that redirected: /rK redirects to /pK,
// which links to /r(K+1), so MaxDepth 2 allows /r0, /r1, /r2 (three page
// bodies) and no more.
func TestMaxDepthThroughRedirects(t *testing.T) {
	var pages atomic.Int64
	h := startHost(t, 61, &requestLog{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var k int
		switch {
		case r.URL.Path == "/robots.txt", r.URL.Path == "/sitemap.xml":
			return // empty: no rules, no sitemap
		case strings.HasPrefix(r.URL.Path, "/r"):
			fmt.Sscanf(r.URL.Path, "/r%d", &k)
			http.Redirect(w, r, fmt.Sprintf("/p%d", k), http.StatusFound)
		default:
			fmt.Sscanf(r.URL.Path, "/p%d", &k)
			pages.Add(1)
			if k < 20 {
				htmlPage(w, fmt.Sprintf(`<a href="/r%d">next</a>`, k+1))
			} else {
				htmlPage(w, "end")
			}
		}
	}))
	e, err := engine.New(engine.Options{Graph: memory.New(), FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback()}, MaxDepth: 2})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.Run(context.Background(), h.URL+"/r0")
	if err != nil {
		t.Fatal(err)
	}
	if n := pages.Load(); n != 3 || sum.Pages != 3 {
		t.Errorf("MaxDepth 2 through redirects: %d pages served, %d crawled, want 3", n, sum.Pages)
	}
}

package engine_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/textindex"
	textmemory "github.com/linksrus/linksrus/textindex/memory"
)

// A page reached through a redirect is one page: stored and indexed under
// its final URL, the original URL an alias with an edge to it, fetched
// once whether or not it is also linked directly.
func TestRedirectedPageIsOnePage(t *testing.T) {
	for _, c := range []struct {
		name  string
		index string // the home page
	}{
		{"linked only through the redirect", `<a href="/docs">docs</a>`},
		{"linked both ways", `<a href="/docs">docs</a> <a href="/docs/">docs/</a>`},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := &requestLog{}
			h := startHost(t, 38, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/robots.txt":
				case "/":
					htmlPage(w, c.index)
				case "/docs":
					http.Redirect(w, r, "/docs/", http.StatusMovedPermanently)
				case "/docs/":
					htmlPage(w, `<p>marmalade</p><a href="/docs/">self</a> <a href="/">home</a>`)
				default:
					http.NotFound(w, r)
				}
			}))
			g, idx := memory.New(), textmemory.New()
			e, err := engine.New(engine.Options{Graph: g, Index: idx, FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback()}})
			if err != nil {
				t.Fatal(err)
			}
			sum, err := e.Run(context.Background(), h.URL+"/")
			if err != nil {
				t.Fatal(err)
			}
			if sum.Pages != 2 || sum.Errors != 0 {
				t.Errorf("crawled %d pages, %d errors, want 2 and 0: %v", sum.Pages, sum.Errors, sum.Reasons)
			}
			if n := log.count(h.Host, "/docs/"); n != 1 {
				t.Errorf("/docs/ requested %d times, want 1", n)
			}
			it, err := idx.Search(textindex.Query{Type: textindex.QueryTypeMatch, Expression: "marmalade"})
			if err != nil {
				t.Fatal(err)
			}
			var urls []string
			for it.Next() {
				urls = append(urls, it.Document().URL)
			}
			it.Close()
			if len(urls) != 1 || urls[0] != h.URL+"/docs/" {
				t.Errorf("search results %q, want the page once under its final URL", urls)
			}
			// The original URL is an alias with one edge, to the page.
			ids := map[string]uuid.UUID{}
			lit, _ := g.Links(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
			for lit.Next() {
				ids[lit.Link().URL] = lit.Link().ID
			}
			lit.Close()
			eit, _ := g.Edges(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
			alias := false
			for eit.Next() {
				e := eit.Edge()
				if e.Src == ids[h.URL+"/docs"] && e.Dst == ids[h.URL+"/docs/"] {
					alias = true
				}
			}
			eit.Close()
			if c.name == "linked only through the redirect" && !alias {
				t.Error("no edge from /docs to /docs/")
			}
		})
	}
}

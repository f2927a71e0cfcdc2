package crawler

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/linksrus/linksrus/linkgraph"
	graphmem "github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/textindex"
	indexmem "github.com/linksrus/linksrus/textindex/memory"
)

// Links handed to Crawl without graph IDs: the graph updater gives each
// page its ID; the index must use it, not the (zero) LinkID.
func TestIndexUsesGraphIDForLinksWithoutID(t *testing.T) {
	s, _ := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html><title>"+r.URL.Path+"</title><body>gopher page "+r.URL.Path+"</body></html>")
	})
	g := graphmem.New()
	idx := indexmem.New()
	cfg := loopbackConfig()
	cfg.Graph, cfg.Index = g, idx
	c, err := NewCrawler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	links := []*linkgraph.Link{{URL: s.URL + "/a"}, {URL: s.URL + "/b"}}
	if n, err := c.Crawl(context.Background(), &sliceLinks{links: links}); n != 2 || err != nil {
		t.Fatalf("Crawl = %d, %v", n, err)
	}
	for _, u := range []string{s.URL + "/a", s.URL + "/b"} {
		l := &linkgraph.Link{URL: u}
		if err := g.UpsertLink(l); err != nil {
			t.Fatal(err)
		}
		if _, err := idx.FindByID(l.ID); err != nil {
			t.Errorf("%s not indexed under its graph ID %s: %v", u, l.ID, err)
		}
	}
	it, _ := idx.Search(textindex.Query{Expression: "gopher"})
	for it.Next() {
	}
	if it.TotalCount() != 2 {
		t.Errorf("index holds %d gopher pages, want 2", it.TotalCount())
	}
	it.Close()
}

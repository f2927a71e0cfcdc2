package crawler_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/linkgraph"
	graphmem "github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/pipeline"
)

// knowingGraph is a memory graph that knows some links' IDs (KnownLinks)
// and records the URLs each UpsertLinks call is given.
type knowingGraph struct {
	*graphmem.Graph
	known map[string]uuid.UUID
	sent  [][]string
}

func (g *knowingGraph) KnownLinkID(url string) (uuid.UUID, bool) {
	id, ok := g.known[url]
	return id, ok
}

func (g *knowingGraph) UpsertLinks(links []*linkgraph.Link) error {
	var urls []string
	for _, l := range links {
		urls = append(urls, l.URL)
	}
	g.sent = append(g.sent, urls)
	return g.Graph.UpsertLinks(links)
}

// The links a graph knows are not upserted again, and link to the IDs it
// knows them by, a page's own link included when known by the page's ID;
// a redirect's final URL and alias always are.
func TestGraphUpdaterLeavesKnownLinksOut(t *testing.T) {
	g := &knowingGraph{Graph: graphmem.New(), known: map[string]uuid.UUID{}}
	defer g.Close()
	pre := []*linkgraph.Link{{URL: "http://example.com/a"}, {URL: "http://example.com/b"}, {URL: "http://example.com/p"}}
	if err := g.Graph.UpsertLinks(pre); err != nil {
		t.Fatal(err)
	}
	for _, l := range pre {
		g.known[l.URL] = l.ID
	}
	p := crawler.NewPayload(pre[2].ID, "http://example.com/p", time.Time{})
	p.FetchedAt = time.Now()
	p.Links = []string{"http://example.com/a", "http://example.com/new"}
	p.NoFollowLinks = []string{"http://example.com/b"}
	r := crawler.NewPayload(uuid.Nil, "http://example.com/old", time.Time{})
	r.FinalURL, r.FetchedAt = "http://example.com/a", time.Now()
	u := crawler.NewGraphUpdater(g)
	if err := u.ProcessBatch(context.Background(), []pipeline.Payload{p, r}); err != nil {
		t.Fatal(err)
	}
	want := []string{"http://example.com/new", "http://example.com/a", "http://example.com/old"}
	if len(g.sent) == 0 || fmt.Sprint(g.sent[0]) != fmt.Sprint(want) {
		t.Fatalf("first UpsertLinks got %q, want %q (the unknown link, the redirect's final URL and alias)", g.sent, want)
	}
	got := edgesOf(t, g.Graph, pre[2].ID)
	if fmt.Sprint(got) != fmt.Sprint([]string{"http://example.com/a", "http://example.com/new"}) {
		t.Errorf("edges from /p = %q", got)
	}
}

// A page known by its own ID and fetched before (the payload's RetrievedAt)
// still loses the edges it no longer has, and a page known under another
// ID than the one it was fetched for is upserted.
func TestGraphUpdaterKnownPageRemovesStaleEdges(t *testing.T) {
	g := &knowingGraph{Graph: graphmem.New(), known: map[string]uuid.UUID{}}
	defer g.Close()
	pre := []*linkgraph.Link{{URL: "http://example.com/p", RetrievedAt: time.Now().Add(-time.Hour)}, {URL: "http://example.com/a"}, {URL: "http://example.com/b"}}
	if err := g.Graph.UpsertLinks(pre); err != nil {
		t.Fatal(err)
	}
	for _, l := range pre {
		g.known[l.URL] = l.ID
	}
	old := time.Now().Add(-time.Hour)
	if err := g.Graph.UpsertEdges([]*linkgraph.Edge{{Src: pre[0].ID, Dst: pre[1].ID, UpdatedAt: old}, {Src: pre[0].ID, Dst: pre[2].ID, UpdatedAt: old}}); err != nil {
		t.Fatal(err)
	}
	p := crawler.NewPayload(pre[0].ID, pre[0].URL, pre[0].RetrievedAt)
	p.FetchedAt = time.Now()
	p.Links = []string{"http://example.com/a"}
	if err := crawler.NewGraphUpdater(g).ProcessBatch(context.Background(), []pipeline.Payload{p}); err != nil {
		t.Fatal(err)
	}
	if got := edgesOf(t, g.Graph, pre[0].ID); fmt.Sprint(got) != fmt.Sprint([]string{"http://example.com/a"}) {
		t.Errorf("edges from /p = %q, want only /a (the edge to /b is stale)", got)
	}
	// The last call marks the page retrieved; none before it names the page.
	if len(g.sent) == 0 {
		t.Fatal("no UpsertLinks call")
	}
	for _, urls := range g.sent[:len(g.sent)-1] {
		if slices.Contains(urls, pre[0].URL) {
			t.Errorf("UpsertLinks calls %q: the known page was upserted for its ID", g.sent)
		}
	}

	// Known under another ID: the graph's ID wins, read back by an upsert.
	g.sent = nil
	q := crawler.NewPayload(uuid.New(), pre[1].URL, time.Time{})
	q.FetchedAt = time.Now()
	if err := crawler.NewGraphUpdater(g).ProcessBatch(context.Background(), []pipeline.Payload{q}); err != nil {
		t.Fatal(err)
	}
	if len(g.sent) == 0 || len(g.sent[0]) == 0 || g.sent[0][0] != pre[1].URL {
		t.Errorf("first UpsertLinks %q, want the page known under another ID", g.sent)
	}
	if q.PageID != pre[1].ID {
		t.Errorf("page ID %s, want the graph's %s", q.PageID, pre[1].ID)
	}
}

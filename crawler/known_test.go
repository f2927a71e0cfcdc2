package crawler_test

import (
	"context"
	"fmt"
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
// knows them by; the pages' own links (and a redirect's alias) always are.
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
	want := []string{"http://example.com/p", "http://example.com/new", "http://example.com/a", "http://example.com/old"}
	if len(g.sent) == 0 || fmt.Sprint(g.sent[0]) != fmt.Sprint(want) {
		t.Fatalf("first UpsertLinks got %q, want %q (the pages' links, the redirect's alias and the unknown link)", g.sent, want)
	}
	got := edgesOf(t, g.Graph, pre[2].ID)
	if fmt.Sprint(got) != fmt.Sprint([]string{"http://example.com/a", "http://example.com/new"}) {
		t.Errorf("edges from /p = %q", got)
	}
}

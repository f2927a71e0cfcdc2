package crawler_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/linkgraph"
	graphmem "github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/pipeline"
)

// recordingGraph is a memory graph that records the URLs each UpsertLinks
// call is given.
type recordingGraph struct {
	*graphmem.Graph
	sent [][]string
}

// knowingFrontier is a Frontier that knows some links' IDs and hands out
// the pages it is given, for the graph updater to ask.
type knowingFrontier struct {
	known map[string]uuid.UUID
	pages []*crawler.Payload
	found []crawler.Found
}

func (f *knowingFrontier) Next(context.Context, func()) (*crawler.Payload, error) {
	if len(f.pages) == 0 {
		return nil, nil
	}
	p := f.pages[0]
	f.pages = f.pages[1:]
	return p, nil
}
func (f *knowingFrontier) Admit(context.Context, *crawler.Payload, *url.URL, bool) error { return nil }
func (f *knowingFrontier) Begin(*crawler.Payload, string) (func(), bool)                 { return func() {}, true }
func (f *knowingFrontier) Park(*crawler.Payload, string, time.Time)                      {}
func (f *knowingFrontier) Done(crawler.Outcome)                                          {}
func (f *knowingFrontier) KnownLinkID(url string) (uuid.UUID, bool) {
	id, ok := f.known[url]
	return id, ok
}
func (f *knowingFrontier) Found(_ context.Context, found []crawler.Found) error {
	for _, fp := range found {
		// The crawler's slices are valid during the call only.
		f.found = append(f.found, crawler.Found{Page: fp.Page, Links: slices.Clone(fp.Links)})
	}
	return nil
}

// tracked returns pages as a Source hands them out of f: pages of f.
func (f *knowingFrontier) tracked(t *testing.T, pages ...*crawler.Payload) []pipeline.Payload {
	t.Helper()
	f.pages = pages
	src := crawler.NewSource(f, nil, nil)
	var out []pipeline.Payload
	for src.Next(context.Background()) {
		out = append(out, src.Payload())
	}
	return out
}

func (g *recordingGraph) UpsertLinks(links []*linkgraph.Link) error {
	var urls []string
	for _, l := range links {
		urls = append(urls, l.URL)
	}
	g.sent = append(g.sent, urls)
	return g.Graph.UpsertLinks(links)
}

// The links the frontier knows are not upserted again, and link to the
// IDs it knows them by, a page's own link included when known by the
// page's ID; a redirect's final URL and alias always are. The frontier is
// told of the links each page follows, with their IDs.
func TestGraphUpdaterLeavesKnownLinksOut(t *testing.T) {
	g := &recordingGraph{Graph: graphmem.New()}
	defer g.Close()
	fr := &knowingFrontier{known: map[string]uuid.UUID{}}
	pre := []*linkgraph.Link{{URL: "http://example.com/a"}, {URL: "http://example.com/b"}, {URL: "http://example.com/p"}}
	if err := g.Graph.UpsertLinks(pre); err != nil {
		t.Fatal(err)
	}
	for _, l := range pre {
		fr.known[l.URL] = l.ID
	}
	p := crawler.NewPayload(pre[2].ID, "http://example.com/p", time.Time{})
	p.FetchedAt = time.Now()
	p.Links = []string{"http://example.com/a", "http://example.com/new"}
	p.NoFollowLinks = []string{"http://example.com/b"}
	r := crawler.NewPayload(uuid.Nil, "http://example.com/old", time.Time{})
	r.FinalURL, r.FetchedAt = "http://example.com/a", time.Now()
	u := crawler.NewGraphUpdater(g)
	if err := u.ProcessBatch(context.Background(), fr.tracked(t, p, r)); err != nil {
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
	if len(fr.found) != 2 || fr.found[0].Page != p || len(fr.found[0].Links) != 2 ||
		fr.found[0].Links[0].ID != pre[0].ID || fr.found[0].Links[1].URL != "http://example.com/new" || fr.found[0].Links[1].ID == uuid.Nil {
		t.Errorf("found %+v, want /p with /a (known) and /new (stored), then the redirected page", fr.found)
	}
}

// A page known by its own ID and fetched before (the payload's RetrievedAt)
// still loses the edges it no longer has, and a page known under another
// ID than the one it was fetched for is upserted.
func TestGraphUpdaterKnownPageRemovesStaleEdges(t *testing.T) {
	g := &recordingGraph{Graph: graphmem.New()}
	defer g.Close()
	fr := &knowingFrontier{known: map[string]uuid.UUID{}}
	pre := []*linkgraph.Link{{URL: "http://example.com/p", RetrievedAt: time.Now().Add(-time.Hour)}, {URL: "http://example.com/a"}, {URL: "http://example.com/b"}}
	if err := g.Graph.UpsertLinks(pre); err != nil {
		t.Fatal(err)
	}
	for _, l := range pre {
		fr.known[l.URL] = l.ID
	}
	old := time.Now().Add(-time.Hour)
	if err := g.Graph.UpsertEdges([]*linkgraph.Edge{{Src: pre[0].ID, Dst: pre[1].ID, UpdatedAt: old}, {Src: pre[0].ID, Dst: pre[2].ID, UpdatedAt: old}}); err != nil {
		t.Fatal(err)
	}
	p := crawler.NewPayload(pre[0].ID, pre[0].URL, pre[0].RetrievedAt)
	p.FetchedAt = time.Now()
	p.Links = []string{"http://example.com/a"}
	if err := crawler.NewGraphUpdater(g).ProcessBatch(context.Background(), fr.tracked(t, p)); err != nil {
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
	if err := crawler.NewGraphUpdater(g).ProcessBatch(context.Background(), fr.tracked(t, q)); err != nil {
		t.Fatal(err)
	}
	if len(g.sent) == 0 || len(g.sent[0]) == 0 || g.sent[0][0] != pre[1].URL {
		t.Errorf("first UpsertLinks %q, want the page known under another ID", g.sent)
	}
	if q.PageID != pre[1].ID {
		t.Errorf("page ID %s, want the graph's %s", q.PageID, pre[1].ID)
	}
}

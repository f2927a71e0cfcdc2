package crawler_test

import (
	"errors"
	"testing"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/linkgraph"
	graphmem "github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/textindex"
)

// failingIndexer refuses every document, as a store that went away would.
type failingIndexer struct{}

var errIndexDown = errors.New("index is down")

func (failingIndexer) Index(*textindex.Document) error { return errIndexDown }

// A page counts as done (RetrievedAt set) only once every store has it: if
// the index fails, the graph must still show the page as due, so that the
// next crawl fetches and indexes it rather than leaving it unindexed for
// good.
func TestPageMarkedRetrievedOnlyAfterIndexing(t *testing.T) {
	s := newSite(t)
	g := graphmem.New()
	seed := &linkgraph.Link{URL: s.URL + "/a"}
	if err := g.UpsertLink(seed); err != nil {
		t.Fatal(err)
	}
	log := &outcomeLog{m: map[string]crawler.Outcome{}}
	c := newCrawler(t, g, failingIndexer{}, log)
	if _, err := c.Crawl(t.Context(), linksToCrawl(t, g)); !errors.Is(err, errIndexDown) {
		t.Fatalf("Crawl: %v, want the index's error", err)
	}
	got, err := g.FindLink(seed.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.RetrievedAt.IsZero() {
		t.Fatalf("page marked retrieved at %v although the index refused it", got.RetrievedAt)
	}
	// Its links were stored all the same: nothing discovered is lost.
	if edges := edgesOf(t, g, seed.ID); len(edges) != 1 || edges[0] != s.URL+"/" {
		t.Fatalf("edges of the page: %v, want the link to home", edges)
	}
}

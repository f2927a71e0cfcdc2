package safety

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/textindex"

	// The backends the command's data can be read back from.
	_ "github.com/linksrus/linksrus/linkgraph/bolt"
	_ "github.com/linksrus/linksrus/linkgraph/postgres"
	_ "github.com/linksrus/linksrus/textindex/postgres"
	_ "github.com/linksrus/linksrus/textindex/sqlite"
)

// storeCheck is what checkStores found.
type storeCheck struct {
	links, crawled, edges, indexed int
	// unindexed are pages of the site retrieved in the graph but missing
	// from the index.
	unindexed []string
}

// checkStores opens the graph and the index a crawl wrote, and checks them
// against the site: every link once (by URL and by ID), every edge once and
// between known links, and, when complete, every page of the site
// retrieved. Pages retrieved but not indexed are listed, not failed: see
// requireIndexed.
func checkStores(t *testing.T, graphURL, indexURL string, site *testSite, complete bool) storeCheck {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, err := linkgraph.Open(ctx, graphURL)
	if err != nil {
		t.Fatalf("open the graph: %v", err)
	}
	defer g.Close()
	ix, err := textindex.Open(ctx, indexURL)
	if err != nil {
		t.Fatalf("open the index: %v", err)
	}
	defer ix.Close()

	var sc storeCheck
	future := time.Now().Add(24 * time.Hour)
	byURL := make(map[string]linkgraph.Link)
	byID := make(map[uuid.UUID]bool)
	it, err := g.Links(uuid.Nil, uuid.Nil, future)
	if err != nil {
		t.Fatalf("list links: %v", err)
	}
	for it.Next() {
		l := *it.Link()
		if _, dup := byURL[l.URL]; dup {
			t.Errorf("link %s stored twice", l.URL)
		}
		if byID[l.ID] {
			t.Errorf("link ID %s stored twice", l.ID)
		}
		byURL[l.URL], byID[l.ID] = l, true
		sc.links++
		if !l.RetrievedAt.IsZero() {
			sc.crawled++
		}
	}
	if err := it.Error(); err != nil {
		t.Fatalf("list links: %v", err)
	}
	it.Close()

	type pair struct{ src, dst uuid.UUID }
	seen := make(map[pair]bool)
	eit, err := g.Edges(uuid.Nil, uuid.Nil, future)
	if err != nil {
		t.Fatalf("list edges: %v", err)
	}
	for eit.Next() {
		e := eit.Edge()
		p := pair{e.Src, e.Dst}
		if seen[p] {
			t.Errorf("edge %s → %s stored twice", e.Src, e.Dst)
		}
		seen[p] = true
		if !byID[e.Src] || !byID[e.Dst] {
			t.Errorf("edge %s → %s has an unknown end", e.Src, e.Dst)
		}
		sc.edges++
	}
	if err := eit.Error(); err != nil {
		t.Fatalf("list edges: %v", err)
	}
	eit.Close()

	for _, u := range site.pages() {
		l, ok := byURL[u]
		if !ok {
			if complete {
				t.Errorf("page %s is not in the graph", u)
			}
			continue
		}
		if l.RetrievedAt.IsZero() {
			if complete {
				t.Errorf("page %s was never retrieved", u)
			}
			continue
		}
		doc, err := ix.FindByID(l.ID)
		switch {
		case err != nil:
			sc.unindexed = append(sc.unindexed, u)
		case doc.URL != u:
			t.Errorf("index document for %s has URL %s", u, doc.URL)
		case err == nil:
			sc.indexed++
		}
	}
	return sc
}

// requireIndexed fails the test if pages were retrieved but never indexed:
// a page counts as retrieved only once every store has it, so a crash
// between the stores' writes must leave it due for the resumed crawl.
func requireIndexed(t *testing.T, sc storeCheck) {
	t.Helper()
	if len(sc.unindexed) != 0 {
		t.Errorf("%d pages retrieved but never indexed: %v", len(sc.unindexed), sc.unindexed)
	}
}

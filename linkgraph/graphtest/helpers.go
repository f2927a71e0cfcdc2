package graphtest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
)

// base is a fixed instant with sub-microsecond digits, so that the suite
// checks the rounding to microseconds every backend must apply.
var base = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.UTC)

// micro is t as the graph stores it: UTC, rounded up to the microsecond.
func micro(t time.Time) time.Time {
	m := t.Truncate(time.Microsecond)
	if m.Before(t) {
		m = m.Add(time.Microsecond)
	}
	return m.UTC()
}

func mustUpsertLink(t *testing.T, g linkgraph.Graph, url string, at time.Time) *linkgraph.Link {
	t.Helper()
	l := &linkgraph.Link{URL: url, RetrievedAt: at}
	if err := g.UpsertLink(l); err != nil {
		t.Fatalf("UpsertLink(%q): %v", url, err)
	}
	if l.ID == uuid.Nil {
		t.Fatalf("UpsertLink(%q) left ID nil", url)
	}
	return l
}

func mustUpsertLinks(t *testing.T, g linkgraph.Graph, n int, at time.Time) []*linkgraph.Link {
	t.Helper()
	links := make([]*linkgraph.Link, n)
	for i := range links {
		links[i] = &linkgraph.Link{URL: fmt.Sprintf("https://example.com/%d", i), RetrievedAt: at}
	}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatalf("UpsertLinks(%d links): %v", n, err)
	}
	return links
}

func mustUpsertEdge(t *testing.T, g linkgraph.Graph, src, dst uuid.UUID, at time.Time) *linkgraph.Edge {
	t.Helper()
	e := &linkgraph.Edge{Src: src, Dst: dst, UpdatedAt: at}
	if err := g.UpsertEdge(e); err != nil {
		t.Fatalf("UpsertEdge(%s -> %s): %v", src, dst, err)
	}
	if e.ID == uuid.Nil {
		t.Fatalf("UpsertEdge(%s -> %s) left ID nil", src, dst)
	}
	return e
}

func collectLinks(t *testing.T, g linkgraph.Graph, from, to uuid.UUID, before time.Time) []*linkgraph.Link {
	t.Helper()
	it, err := g.Links(from, to, before)
	if err != nil {
		t.Fatalf("Links(%s, %s, %v): %v", from, to, before, err)
	}
	var out []*linkgraph.Link
	for it.Next() {
		out = append(out, it.Link())
	}
	if err := it.Error(); err != nil {
		t.Fatalf("Links iterator: %v", err)
	}
	if err := it.Close(); err != nil {
		t.Fatalf("Links iterator Close: %v", err)
	}
	return out
}

func collectEdges(t *testing.T, g linkgraph.Graph, from, to uuid.UUID, before time.Time) []*linkgraph.Edge {
	t.Helper()
	it, err := g.Edges(from, to, before)
	if err != nil {
		t.Fatalf("Edges(%s, %s, %v): %v", from, to, before, err)
	}
	var out []*linkgraph.Edge
	for it.Next() {
		out = append(out, it.Edge())
	}
	if err := it.Error(); err != nil {
		t.Fatalf("Edges iterator: %v", err)
	}
	if err := it.Close(); err != nil {
		t.Fatalf("Edges iterator Close: %v", err)
	}
	return out
}

func sortedIDs(links []*linkgraph.Link) []uuid.UUID {
	ids := make([]uuid.UUID, len(links))
	for i, l := range links {
		ids[i] = l.ID
	}
	slices.SortFunc(ids, linkgraph.CompareIDs)
	return ids
}

func checkLinkEqual(t *testing.T, got, want *linkgraph.Link) {
	t.Helper()
	if got == nil {
		t.Fatalf("got nil link, want %+v", want)
	}
	if got.ID != want.ID || got.URL != want.URL || !got.RetrievedAt.Equal(want.RetrievedAt) {
		t.Fatalf("got link %+v, want %+v", got, want)
	}
}

// partitionBounds splits the UUID space into n ranges by the first byte;
// the last range ends at uuid.Nil, meaning no upper bound.
func partitionBounds(n int) [][2]uuid.UUID {
	var out [][2]uuid.UUID
	var from uuid.UUID
	for i := 1; i <= n; i++ {
		var to uuid.UUID
		if i < n {
			to[0] = byte(i * 256 / n)
		}
		out = append(out, [2]uuid.UUID{from, to})
		from = to
	}
	return out
}

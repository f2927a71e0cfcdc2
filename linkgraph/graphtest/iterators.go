package graphtest

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
)

func testNoMutationThroughPointers(t *testing.T, g linkgraph.Graph) {
	l := mustUpsertLink(t, g, "https://example.com/", base)
	id := l.ID
	// Changing the caller's value after the upsert changes nothing stored.
	l.URL, l.RetrievedAt = "https://evil.example/", base.Add(time.Hour)

	found, err := g.FindLink(id)
	if err != nil {
		t.Fatalf("FindLink: %v", err)
	}
	found.URL = "https://evil.example/found"
	found.RetrievedAt = base.Add(2 * time.Hour)

	it, err := g.Links(uuid.Nil, uuid.Nil, base.Add(time.Minute))
	if err != nil {
		t.Fatalf("Links: %v", err)
	}
	if !it.Next() {
		t.Fatalf("Links: no link (error %v)", it.Error())
	}
	fromIt := it.Link()
	fromIt.URL = "https://evil.example/iterated"
	if again := it.Link(); again.URL != "https://example.com/" {
		t.Fatalf("changing Link()'s result changed the iterator's next answer to %q", again.URL)
	}
	if err := it.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	got, err := g.FindLink(id)
	if err != nil {
		t.Fatalf("FindLink: %v", err)
	}
	checkLinkEqual(t, got, &linkgraph.Link{ID: id, URL: "https://example.com/", RetrievedAt: micro(base)})

	dst := mustUpsertLink(t, g, "https://example.com/dst", base)
	e := mustUpsertEdge(t, g, id, dst.ID, base)
	e.Dst, e.UpdatedAt = uuid.New(), base.Add(time.Hour)
	eit, err := g.Edges(uuid.Nil, uuid.Nil, base.Add(time.Minute))
	if err != nil {
		t.Fatalf("Edges: %v", err)
	}
	if !eit.Next() {
		t.Fatalf("Edges: no edge (error %v)", eit.Error())
	}
	fromEIt := eit.Edge()
	fromEIt.Src = uuid.New()
	if again := eit.Edge(); again.Src != id || again.Dst != dst.ID || !again.UpdatedAt.Equal(micro(base)) {
		t.Fatalf("stored edge changed through a pointer: %+v", again)
	}
	if err := eit.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func testIteratorBehaviour(t *testing.T, g linkgraph.Graph) {
	links := mustUpsertLinks(t, g, 3, base)
	mustUpsertEdge(t, g, links[0].ID, links[1].ID, base)

	it, err := g.Links(uuid.Nil, uuid.Nil, base.Add(time.Minute))
	if err != nil {
		t.Fatalf("Links: %v", err)
	}
	if l := it.Link(); l != nil {
		t.Fatalf("Link() before Next = %+v, want nil", l)
	}
	if !it.Next() || it.Link() == nil {
		t.Fatalf("first Next failed: %v", it.Error())
	}
	// Closing early is allowed, idempotent, and ends the iteration.
	if err := it.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := it.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if it.Next() {
		t.Fatalf("Next after Close returned true")
	}
	if err := it.Error(); err != nil {
		t.Fatalf("Error after an early Close = %v, want nil", err)
	}

	// Exhausting an iterator leaves Next false and Error nil.
	it, err = g.Links(uuid.Nil, uuid.Nil, base.Add(time.Minute))
	if err != nil {
		t.Fatalf("Links: %v", err)
	}
	n := 0
	for it.Next() {
		n++
	}
	if n != 3 || it.Error() != nil {
		t.Fatalf("iterated %d links with error %v, want 3 and nil", n, it.Error())
	}
	if it.Next() {
		t.Fatalf("Next after the end returned true")
	}
	if l := it.Link(); l != nil {
		t.Fatalf("Link() after the end = %+v, want nil", l)
	}
	if err := it.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	// An empty range gives a working, empty iterator.
	it, err = g.Links(links[0].ID, links[0].ID, base.Add(time.Minute))
	if err != nil {
		t.Fatalf("Links(empty range): %v", err)
	}
	if it.Next() || it.Error() != nil || it.Close() != nil {
		t.Fatalf("empty iterator misbehaved: error %v", it.Error())
	}

	eit, err := g.Edges(uuid.Nil, uuid.Nil, base.Add(time.Minute))
	if err != nil {
		t.Fatalf("Edges: %v", err)
	}
	if e := eit.Edge(); e != nil {
		t.Fatalf("Edge() before Next = %+v, want nil", e)
	}
	if !eit.Next() || eit.Edge() == nil {
		t.Fatalf("first Next failed: %v", eit.Error())
	}
	if eit.Next() {
		t.Fatalf("second Next on one edge returned true")
	}
	if err := eit.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := eit.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if eit.Next() || eit.Error() != nil {
		t.Fatalf("closed edge iterator: Next true or error %v", eit.Error())
	}
}

// testClosedGraph checks that a closed graph fails cleanly instead of
// panicking or hanging.
func testClosedGraph(t *testing.T, g linkgraph.Graph) {
	l := mustUpsertLink(t, g, "https://example.com/", base)
	if err := g.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := g.UpsertLink(&linkgraph.Link{URL: "https://example.com/late"}); err == nil {
		t.Errorf("UpsertLink after Close succeeded")
	}
	if err := g.UpsertLinks([]*linkgraph.Link{{URL: "https://example.com/late"}}); err == nil {
		t.Errorf("UpsertLinks after Close succeeded")
	}
	if _, err := g.FindLink(l.ID); err == nil {
		t.Errorf("FindLink after Close succeeded")
	}
	if _, err := g.Links(uuid.Nil, uuid.Nil, base); err == nil {
		t.Errorf("Links after Close succeeded")
	}
	if err := g.UpsertEdge(&linkgraph.Edge{Src: l.ID, Dst: l.ID}); err == nil {
		t.Errorf("UpsertEdge after Close succeeded")
	}
	if err := g.UpsertEdges([]*linkgraph.Edge{{Src: l.ID, Dst: l.ID}}); err == nil {
		t.Errorf("UpsertEdges after Close succeeded")
	}
	if _, err := g.Edges(uuid.Nil, uuid.Nil, base); err == nil {
		t.Errorf("Edges after Close succeeded")
	}
	if err := g.RemoveStaleEdges(l.ID, base); err == nil {
		t.Errorf("RemoveStaleEdges after Close succeeded")
	}
	if err := g.RefreshEdges([]uuid.UUID{l.ID}, base); err == nil {
		t.Errorf("RefreshEdges after Close succeeded")
	}
}

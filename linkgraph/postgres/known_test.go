package postgres

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler/workqueue"
	"github.com/linksrus/linksrus/linkgraph"
)

func TestKnownLinksBounded(t *testing.T) {
	var k knownLinks
	first := uuid.New()
	k.add(first)
	if got := k.unknown(uuidArray{first}); len(got) != 0 {
		t.Fatalf("a link just added is unknown: %v", got)
	}
	other := uuid.New()
	if got := k.unknown(uuidArray{other, first, other}, uuidArray{other}); len(got) != 1 || got[0] != other {
		t.Fatalf("unknown = %v, want [%v] once", got, other)
	}
	// The first ID survives one generation turning over, not two.
	for range knownLinksMax {
		k.add(uuid.New())
	}
	if got := k.unknown(uuidArray{first}); len(got) != 0 {
		t.Fatal("forgotten after one generation")
	}
	for range knownLinksMax {
		k.add(uuid.New())
	}
	if got := k.unknown(uuidArray{first}); len(got) != 1 {
		t.Fatal("still known after two generations: the set is not bounded")
	}
	if got := k.unknown(); got == nil {
		t.Fatal("unknown of nothing is nil, which pgx sends as NULL")
	}
}

// TestEdgeEndsCheckedOnlyWhenUnseen shows that an edge batch looks up in
// the database only the ends the graph has not seen stored, and that the
// check still refuses edges to links that do not exist.
func TestEdgeEndsCheckedOnlyWhenUnseen(t *testing.T) {
	dsn := testDatabase(t)
	open := func() *Graph {
		g, err := Open(t.Context(), dsn, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		return g
	}
	g, other := open(), open()
	a, b := &linkgraph.Link{URL: "http://known.test/a"}, &linkgraph.Link{URL: "http://known.test/b"}
	if err := g.UpsertLinks([]*linkgraph.Link{a, b}); err != nil {
		t.Fatal(err)
	}
	checked := func(want int64) {
		t.Helper()
		if got := g.endsChecked.Swap(0); got != want {
			t.Fatalf("%d edge ends looked up in the database, want %d", got, want)
		}
	}
	if err := g.UpsertEdges([]*linkgraph.Edge{{Src: a.ID, Dst: b.ID}, {Src: b.ID, Dst: a.ID}}); err != nil {
		t.Fatal(err)
	}
	checked(0)

	// A link nobody stored: refused, and not remembered as stored.
	ghost := uuid.New()
	for range 2 {
		err := g.UpsertEdges([]*linkgraph.Edge{{Src: a.ID, Dst: ghost}})
		if !errors.Is(err, linkgraph.ErrUnknownEdgeLinks) {
			t.Fatalf("edge to a link never stored: %v, want ErrUnknownEdgeLinks", err)
		}
		checked(1)
	}

	// A link another process stored: looked up once, then known.
	c := &linkgraph.Link{URL: "http://known.test/c"}
	if err := other.UpsertLinks([]*linkgraph.Link{c}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []int64{1, 0} {
		if err := g.UpsertEdges([]*linkgraph.Edge{{Src: a.ID, Dst: c.ID}}); err != nil {
			t.Fatal(err)
		}
		checked(want)
	}

	// Links read from the crawl queue are joined with links: stored.
	reader := open()
	if err := other.WorkQueue().Enqueue(t.Context(), []workqueue.Link{{ID: a.ID, Host: "known.test"}, {ID: c.ID, Host: "known.test"}}); err != nil {
		t.Fatal(err)
	}
	pulled, err := reader.WorkQueue().Pull(t.Context(), "known.test", nil, 10)
	if err != nil || len(pulled) != 2 {
		t.Fatalf("pulled %d links (%v), want 2", len(pulled), err)
	}
	if err := reader.UpsertEdges([]*linkgraph.Edge{{Src: c.ID, Dst: a.ID}}); err != nil {
		t.Fatal(err)
	}
	if n := reader.endsChecked.Load(); n != 0 {
		t.Fatalf("%d ends of pulled links looked up in the database, want 0", n)
	}

	it, err := g.Edges(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for it.Next() {
		n++
	}
	if n != 4 {
		t.Fatalf("%d edges stored, want 4", n)
	}
}

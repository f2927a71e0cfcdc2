package graphtest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
)

func testUpsertEdgeAndRefresh(t *testing.T, g linkgraph.Graph) {
	src := mustUpsertLink(t, g, "https://example.com/src", base)
	dst := mustUpsertLink(t, g, "https://example.com/dst", base)

	before := time.Now()
	e := mustUpsertEdge(t, g, src.ID, dst.ID, time.Time{})
	after := time.Now()
	if e.UpdatedAt.Before(before) || !e.UpdatedAt.Before(after) {
		t.Fatalf("edge with zero UpdatedAt stamped %v, want between %v and %v", e.UpdatedAt, before, after)
	}
	first := *e

	time.Sleep(2 * time.Millisecond)
	again := mustUpsertEdge(t, g, src.ID, dst.ID, time.Time{})
	if again.ID != first.ID {
		t.Fatalf("re-upserted edge got ID %s, want %s", again.ID, first.ID)
	}
	if !again.UpdatedAt.After(first.UpdatedAt) {
		t.Fatalf("re-upsert did not refresh UpdatedAt: %v then %v", first.UpdatedAt, again.UpdatedAt)
	}
	got := collectEdges(t, g, uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if len(got) != 1 || *got[0] != (linkgraph.Edge{ID: first.ID, Src: src.ID, Dst: dst.ID, UpdatedAt: again.UpdatedAt}) {
		t.Fatalf("Edges = %+v, want the one refreshed edge", got)
	}

	// A self-link is a legitimate edge.
	self := mustUpsertEdge(t, g, src.ID, src.ID, base)
	if self.ID == first.ID {
		t.Fatalf("self edge reused ID %s", self.ID)
	}
}

func testUpsertEdgeKeepsLaterUpdatedAt(t *testing.T, g linkgraph.Graph) {
	src := mustUpsertLink(t, g, "https://example.com/src", base)
	dst := mustUpsertLink(t, g, "https://example.com/dst", base)
	e := mustUpsertEdge(t, g, src.ID, dst.ID, base)
	if !e.UpdatedAt.Equal(micro(base)) {
		t.Fatalf("UpdatedAt = %v, want the given %v", e.UpdatedAt, micro(base))
	}
	older := mustUpsertEdge(t, g, src.ID, dst.ID, base.Add(-time.Hour))
	if older.ID != e.ID || !older.UpdatedAt.Equal(micro(base)) {
		t.Fatalf("upsert with an older time gave %+v, want ID %s and UpdatedAt %v", older, e.ID, micro(base))
	}
	got := collectEdges(t, g, uuid.Nil, uuid.Nil, base.Add(time.Hour))
	if len(got) != 1 || !got[0].UpdatedAt.Equal(micro(base)) || got[0].UpdatedAt.Location() != time.UTC {
		t.Fatalf("Edges = %+v, want one edge updated at %v UTC", got, micro(base))
	}
}

func testUpsertEdgesBatch(t *testing.T, g linkgraph.Graph) {
	links := mustUpsertLinks(t, g, 4, base)
	existing := mustUpsertEdge(t, g, links[0].ID, links[1].ID, base)
	if err := g.UpsertEdges(nil); err != nil {
		t.Fatalf("UpsertEdges(nil): %v", err)
	}
	batch := []*linkgraph.Edge{
		{Src: links[0].ID, Dst: links[1].ID, UpdatedAt: base.Add(time.Minute)},
		{Src: links[0].ID, Dst: links[2].ID, UpdatedAt: base},
		{Src: links[2].ID, Dst: links[3].ID},
		{Src: links[0].ID, Dst: links[2].ID, UpdatedAt: base.Add(2 * time.Minute)},
	}
	if err := g.UpsertEdges(batch); err != nil {
		t.Fatalf("UpsertEdges: %v", err)
	}
	if batch[0].ID != existing.ID {
		t.Fatalf("batch upsert of an existing edge got ID %s, want %s", batch[0].ID, existing.ID)
	}
	if batch[1].ID != batch[3].ID || batch[1].ID == uuid.Nil {
		t.Fatalf("duplicate edges in one batch got IDs %s and %s", batch[1].ID, batch[3].ID)
	}
	if !batch[1].UpdatedAt.Equal(micro(base.Add(2*time.Minute))) || !batch[3].UpdatedAt.Equal(micro(base.Add(2*time.Minute))) {
		t.Fatalf("duplicates got UpdatedAt %v and %v, want the latest %v", batch[1].UpdatedAt, batch[3].UpdatedAt, micro(base.Add(2*time.Minute)))
	}
	if batch[2].UpdatedAt.IsZero() || batch[2].ID == uuid.Nil {
		t.Fatalf("edge without UpdatedAt came back as %+v", batch[2])
	}
	got := collectEdges(t, g, uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if len(got) != 3 {
		t.Fatalf("graph holds %d edges, want 3", len(got))
	}
	for _, e := range got {
		var want *linkgraph.Edge
		for _, b := range batch {
			if b.Src == e.Src && b.Dst == e.Dst {
				want = b
			}
		}
		if want == nil || *e != *want {
			t.Fatalf("stored edge %+v, want %+v", e, want)
		}
	}
}

func testUnknownEdgeLinks(t *testing.T, g linkgraph.Graph) {
	known := mustUpsertLink(t, g, "https://example.com/", base)
	other := mustUpsertLink(t, g, "https://example.com/other", base)
	for _, e := range []*linkgraph.Edge{
		{Src: known.ID, Dst: uuid.New()},
		{Src: uuid.New(), Dst: known.ID},
		{Src: uuid.New(), Dst: uuid.New()},
		{Src: uuid.Nil, Dst: uuid.Nil},
		nil,
	} {
		if err := g.UpsertEdge(e); !errors.Is(err, linkgraph.ErrUnknownEdgeLinks) {
			t.Errorf("UpsertEdge(%+v) error = %v, want ErrUnknownEdgeLinks", e, err)
		}
		// One bad edge fails the whole batch.
		batch := []*linkgraph.Edge{{Src: known.ID, Dst: other.ID}, e}
		if err := g.UpsertEdges(batch); !errors.Is(err, linkgraph.ErrUnknownEdgeLinks) {
			t.Errorf("UpsertEdges with %+v error = %v, want ErrUnknownEdgeLinks", e, err)
		}
	}
	if got := collectEdges(t, g, uuid.Nil, uuid.Nil, time.Now().Add(time.Hour)); len(got) != 0 {
		t.Fatalf("failed upserts stored %d edges: %+v", len(got), got)
	}
}

func testEdgeRangeAndTimeFilter(t *testing.T, g linkgraph.Graph) {
	links := mustUpsertLinks(t, g, 40, base)
	var edges []*linkgraph.Edge
	for i, src := range links {
		for j := 1; j <= 3; j++ {
			edges = append(edges, &linkgraph.Edge{Src: src.ID, Dst: links[(i+j*7)%len(links)].ID, UpdatedAt: base.Add(time.Duration(j) * time.Minute)})
		}
	}
	if err := g.UpsertEdges(edges); err != nil {
		t.Fatalf("UpsertEdges: %v", err)
	}
	key := func(e *linkgraph.Edge) [32]byte {
		var k [32]byte
		copy(k[:16], e.Src[:])
		copy(k[16:], e.Dst[:])
		return k
	}
	// The graph's (Src, Dst) order.
	cmpKey := func(a, b [32]byte) int {
		if c := linkgraph.CompareIDs(uuid.UUID(a[:16]), uuid.UUID(b[:16])); c != 0 {
			return c
		}
		return linkgraph.CompareIDs(uuid.UUID(a[16:]), uuid.UUID(b[16:]))
	}
	cmpEdge := func(a, b *linkgraph.Edge) int { return cmpKey(key(a), key(b)) }
	var want [][32]byte
	for _, e := range edges {
		if e.UpdatedAt.Before(micro(base.Add(3 * time.Minute))) {
			want = append(want, key(e))
		}
	}
	slices.SortFunc(want, cmpKey)

	for _, n := range []int{1, 5} {
		var got [][32]byte
		for _, r := range partitionBounds(n) {
			part := collectEdges(t, g, r[0], r[1], micro(base.Add(3*time.Minute)))
			for i, e := range part {
				if linkgraph.CompareIDs(e.Src, r[0]) < 0 || (r[1] != uuid.Nil && linkgraph.CompareIDs(e.Src, r[1]) >= 0) {
					t.Fatalf("partition [%s, %s) returned an edge from %s", r[0], r[1], e.Src)
				}
				if i > 0 && cmpEdge(part[i-1], e) >= 0 {
					t.Fatalf("edges not in (Src, Dst) order")
				}
				if !e.UpdatedAt.Before(micro(base.Add(3 * time.Minute))) {
					t.Fatalf("edge updated at %v passed the filter", e.UpdatedAt)
				}
				got = append(got, key(e))
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%d partitions visited %d edges, want each of %d once", n, len(got), len(want))
		}
	}
	if got := collectEdges(t, g, uuid.Nil, uuid.Nil, base); len(got) != 0 {
		t.Fatalf("Edges before every update = %d edges, want 0", len(got))
	}
}

func testRemoveStaleEdges(t *testing.T, g linkgraph.Graph) {
	links := mustUpsertLinks(t, g, 4, base)
	a, b, c, d := links[0].ID, links[1].ID, links[2].ID, links[3].ID
	mustUpsertEdge(t, g, a, b, base)
	mustUpsertEdge(t, g, a, c, base.Add(time.Hour))
	mustUpsertEdge(t, g, d, b, base) // stale, but another source's

	if err := g.RemoveStaleEdges(a, base.Add(time.Minute)); err != nil {
		t.Fatalf("RemoveStaleEdges: %v", err)
	}
	got := collectEdges(t, g, uuid.Nil, uuid.Nil, base.Add(2*time.Hour))
	if len(got) != 2 {
		t.Fatalf("after removal %d edges remain, want 2", len(got))
	}
	for _, e := range got {
		if e.Src == a && e.Dst == b {
			t.Fatalf("stale edge a -> b survived")
		}
	}
	// Removing from a link without edges, or an unknown one, is no error.
	if err := g.RemoveStaleEdges(c, base.Add(time.Hour)); err != nil {
		t.Fatalf("RemoveStaleEdges(no edges): %v", err)
	}
	if err := g.RemoveStaleEdges(uuid.New(), base.Add(time.Hour)); err != nil {
		t.Fatalf("RemoveStaleEdges(unknown): %v", err)
	}
	// The bound is exclusive: an edge stored exactly at it stays.
	if err := g.RemoveStaleEdges(a, micro(base.Add(time.Hour))); err != nil {
		t.Fatalf("RemoveStaleEdges: %v", err)
	}
	if got := collectEdges(t, g, a, uuid.Nil, base.Add(2*time.Hour)); !slices.ContainsFunc(got, func(e *linkgraph.Edge) bool { return e.Src == a && e.Dst == c }) {
		t.Fatalf("edge updated exactly at the bound was removed")
	}
}

// testCrawlerRefreshPattern is how the crawler uses edges: note the time,
// upsert the page's current edges with the graph's clock, drop the rest.
func testCrawlerRefreshPattern(t *testing.T, g linkgraph.Graph) {
	links := mustUpsertLinks(t, g, 4, base)
	src := links[0].ID
	if err := g.UpsertEdges([]*linkgraph.Edge{{Src: src, Dst: links[1].ID}, {Src: src, Dst: links[2].ID}}); err != nil {
		t.Fatalf("UpsertEdges: %v", err)
	}
	// The second crawl follows at once: the graph's stamps keep the order
	// of clock readings even within one microsecond (see
	// testEdgeStampsFollowClockReadings).
	removeBefore := time.Now()
	if err := g.UpsertEdges([]*linkgraph.Edge{{Src: src, Dst: links[2].ID}, {Src: src, Dst: links[3].ID}}); err != nil {
		t.Fatalf("UpsertEdges: %v", err)
	}
	if err := g.RemoveStaleEdges(src, removeBefore); err != nil {
		t.Fatalf("RemoveStaleEdges: %v", err)
	}
	got := collectEdges(t, g, uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if len(got) != 2 {
		t.Fatalf("after a refresh %d edges remain, want 2", len(got))
	}
	for _, e := range got {
		if e.Dst == links[1].ID {
			t.Fatalf("edge the page no longer has survived")
		}
	}
}

// testEdgeBoundWithinMicrosecond: an edge stored at a microsecond is before
// a bound one nanosecond later, for Edges and RemoveStaleEdges alike.
func testEdgeBoundWithinMicrosecond(t *testing.T, g linkgraph.Graph) {
	src := mustUpsertLink(t, g, "https://example.com/src", time.Time{})
	dst := mustUpsertLink(t, g, "https://example.com/dst", time.Time{})
	e := &linkgraph.Edge{Src: src.ID, Dst: dst.ID, UpdatedAt: base}
	if err := g.UpsertEdge(e); err != nil {
		t.Fatal(err)
	}
	bound := micro(base).Add(time.Nanosecond)
	if got := collectEdges(t, g, uuid.Nil, uuid.Nil, bound); len(got) != 1 {
		t.Fatalf("Edges before %v: %d edges, want the one updated at %v", bound, len(got), micro(base))
	}
	if err := g.RemoveStaleEdges(src.ID, bound); err != nil {
		t.Fatal(err)
	}
	if got := collectEdges(t, g, uuid.Nil, uuid.Nil, time.Now().Add(time.Hour)); len(got) != 0 {
		t.Fatalf("RemoveStaleEdges before %v left %d edges", bound, len(got))
	}
}

// clockTries is how many times the clock-reading tests write and check: a
// write in the same microsecond as the clock reading before it is the case
// that matters, and tries made back to back hit it often but not always.
const clockTries = 25

// testEdgeStampsFollowClockReadings checks the time contract of
// linkgraph.Graph for edges, as a crawler or the book's graph updater
// relies on it: read the clock, write, read the clock again. The stored
// UpdatedAt is not before the first reading and before the second, so
// Edges and RemoveStaleEdges leave the edge out with the first and take
// it with the second, whoever gave the time: the graph's clock (a zero
// UpdatedAt or RefreshEdges time) or the caller's (time.Now, read after
// the first reading).
func testEdgeStampsFollowClockReadings(t *testing.T, g linkgraph.Graph) {
	links := mustUpsertLinks(t, g, 2, time.Time{})
	src, dst := links[0].ID, links[1].ID
	upsert := func(at func() time.Time) func() (time.Time, error) {
		return func() (time.Time, error) {
			e := &linkgraph.Edge{Src: src, Dst: dst, UpdatedAt: at()}
			err := g.UpsertEdges([]*linkgraph.Edge{e})
			return e.UpdatedAt, err
		}
	}
	refresh := func(at func() time.Time) func() (time.Time, error) {
		return func() (time.Time, error) { return time.Time{}, g.RefreshEdges([]uuid.UUID{src}, at()) }
	}
	zero := func() time.Time { return time.Time{} }
	for _, w := range []struct {
		name  string
		write func() (stored time.Time, err error) // stored is zero when the write does not say
	}{
		{"UpsertEdges with a zero UpdatedAt", upsert(zero)},
		{"UpsertEdges with UpdatedAt time.Now()", upsert(time.Now)},
		{"RefreshEdges with a zero time", refresh(zero)},
		{"RefreshEdges with time.Now()", refresh(time.Now)},
	} {
		for try := range clockTries {
			// The edge starts long stale, so that every write moves it.
			mustUpsertEdge(t, g, src, dst, base)
			before := time.Now()
			stored, err := w.write()
			after := time.Now()
			if err != nil {
				t.Fatalf("%s: %v", w.name, err)
			}
			all := collectEdges(t, g, uuid.Nil, uuid.Nil, after.Add(time.Hour))
			if len(all) != 1 {
				t.Fatalf("%s: graph holds %d edges, want 1", w.name, len(all))
			}
			at := all[0].UpdatedAt
			if !stored.IsZero() && !stored.Equal(at) {
				t.Fatalf("%s: the caller's edge says UpdatedAt %v, the graph holds %v", w.name, stored, at)
			}
			if err := g.RemoveStaleEdges(src, before); err != nil {
				t.Fatalf("RemoveStaleEdges: %v", err)
			}
			if got := collectEdges(t, g, uuid.Nil, uuid.Nil, after.Add(time.Hour)); len(got) != 1 {
				t.Fatalf("%s, try %d: RemoveStaleEdges(src, %v), the clock read before the write, removed the edge it stored at %v",
					w.name, try, before.UTC(), at)
			}
			if got := collectEdges(t, g, uuid.Nil, uuid.Nil, before); len(got) != 0 {
				t.Fatalf("%s, try %d: Edges updated before %v (read before the write) include the edge updated at %v",
					w.name, try, before.UTC(), got[0].UpdatedAt)
			}
			if got := collectEdges(t, g, uuid.Nil, uuid.Nil, after); len(got) != 1 {
				t.Fatalf("%s, try %d: Edges updated before %v (read after the write) leave out the edge updated at %v",
					w.name, try, after.UTC(), at)
			}
			if err := g.RemoveStaleEdges(src, after); err != nil {
				t.Fatalf("RemoveStaleEdges: %v", err)
			}
			if got := collectEdges(t, g, uuid.Nil, uuid.Nil, after.Add(time.Hour)); len(got) != 0 {
				t.Fatalf("%s, try %d: RemoveStaleEdges(src, %v), the clock read after the write, kept the edge it stored at %v",
					w.name, try, after.UTC(), at)
			}
			if at.Before(before) || !at.Before(after) {
				t.Fatalf("%s, try %d: UpdatedAt %v, want in [%v, %v), the clock read before and after the call",
					w.name, try, at, before.UTC(), after.UTC())
			}
		}
	}
}

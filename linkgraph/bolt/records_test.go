package bolt

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/memory"
	bbolt "go.etcd.io/bbolt"
)

// TestEdgeIDIsSharedWithMemory: both backends that derive edge IDs give
// the same one for the same pair.
func TestEdgeIDIsSharedWithMemory(t *testing.T) {
	src, dst := uuid.New(), uuid.New()
	mem := memory.New()
	links := []*linkgraph.Link{{ID: src, URL: "http://a/"}, {ID: dst, URL: "http://b/"}}
	if err := mem.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	e := &linkgraph.Edge{Src: links[0].ID, Dst: links[1].ID}
	if err := mem.UpsertEdge(e); err != nil {
		t.Fatal(err)
	}
	if got := edgeID(e.Src, e.Dst); got != e.ID {
		t.Fatalf("bolt's edgeID = %s, memory's %s", got, e.ID)
	}
}

// record builds a record from (destination byte, time) pairs.
func record(entries ...[2]int64) edgeRecord {
	var r edgeRecord
	for _, e := range entries {
		r = appendEdgeEntry(r, dstOf(e[0]), e[1])
	}
	return r
}

func dstOf(b int64) []byte { d := uuid.UUID{15: byte(b)}; return d[:] }

func entriesOf(r edgeRecord) [][2]int64 {
	var out [][2]int64
	for i := range r.len() {
		out = append(out, [2]int64{int64(r.dst(i)[15]), r.micros(i)})
	}
	return out
}

func TestMergeEdges(t *testing.T) {
	rec := record([2]int64{2, 20}, [2]int64{4, 40}, [2]int64{6, 60}, [2]int64{8, 80})
	ups := []edgeUpdate{
		{dst: uuid.UUID(dstOf(1)), micros: 5},  // new, before all
		{dst: uuid.UUID(dstOf(4)), micros: 30}, // known, older: keeps 40
		{dst: uuid.UUID(dstOf(5)), micros: 50}, // new, in between
		{dst: uuid.UUID(dstOf(6)), micros: 61}, // known, later
		{dst: uuid.UUID(dstOf(9)), micros: 90}, // new, after all
	}
	stored := make([]int64, len(ups))
	var added []int64
	out, changed, err := mergeEdges(rec, ups, stored, func(dst uuid.UUID) error {
		added = append(added, int64(dst[15]))
		return nil
	})
	if err != nil || !slices.Equal(added, []int64{1, 5, 9}) {
		t.Fatalf("merge asked about destinations %v (error %v), want the new ones 1, 5, 9", added, err)
	}
	want := [][2]int64{{1, 5}, {2, 20}, {4, 40}, {5, 50}, {6, 61}, {8, 80}, {9, 90}}
	if got := entriesOf(out); !changed || !slices.Equal(got, want) {
		t.Fatalf("merge = %v (changed %v), want %v", got, changed, want)
	}
	if !slices.Equal(stored, []int64{5, 40, 50, 61, 90}) {
		t.Fatalf("stored times %v", stored)
	}
	if _, err := checkEdgeRecord(make([]byte, 16), out); err != nil {
		t.Fatalf("merged record does not check: %v", err)
	}

	// Known edges with times no later than stored change nothing.
	_, changed, _ = mergeEdges(rec, []edgeUpdate{{dst: uuid.UUID(dstOf(2)), micros: 20}, {dst: uuid.UUID(dstOf(8)), micros: 1}}, stored[:2], nil)
	if changed || stored[0] != 20 || stored[1] != 80 {
		t.Fatalf("merging known edges: changed %v, stored %v", changed, stored[:2])
	}
	boom := errors.New("unknown")
	if _, _, err := mergeEdges(rec, ups, stored, func(uuid.UUID) error { return boom }); err != boom {
		t.Fatalf("merge error %v, want isNew's", err)
	}
	// Into no record at all.
	out, _, _ = mergeEdges(nil, ups[:1], stored[:1], nil)
	if got := entriesOf(out); !slices.Equal(got, [][2]int64{{1, 5}}) {
		t.Fatalf("merge into nothing = %v", got)
	}
}

func TestStaleEntries(t *testing.T) {
	rec := record([2]int64{1, 10}, [2]int64{2, 30}, [2]int64{3, 20})
	if !rec.hasStale(20) || rec.hasStale(10) {
		t.Fatal("hasStale misjudged the bound (it is exclusive)")
	}
	if got := entriesOf(rec.withoutStale(21)); !slices.Equal(got, [][2]int64{{2, 30}}) {
		t.Fatalf("withoutStale = %v", got)
	}
	if len(rec.withoutStale(31)) != 0 {
		t.Fatal("withoutStale kept an entry older than the bound")
	}
}

func TestCheckEdgeRecordRejects(t *testing.T) {
	key := make([]byte, 16)
	good := record([2]int64{1, 1}, [2]int64{2, 2})
	for name, tc := range map[string]struct{ k, v []byte }{
		"short key":      {key[:15], good},
		"empty value":    {key, nil},
		"partial entry":  {key, good[:len(good)-1]},
		"repeated dst":   {key, record([2]int64{1, 1}, [2]int64{1, 2})},
		"dsts backwards": {key, record([2]int64{2, 1}, [2]int64{1, 2})},
	} {
		if _, err := checkEdgeRecord(tc.k, tc.v); !errors.Is(err, linkgraph.ErrCorrupt) {
			t.Errorf("%s: error %v, want ErrCorrupt", name, err)
		}
	}
	if _, err := checkEdgeRecord(key, good); err != nil {
		t.Fatalf("good record: %v", err)
	}
}

// A page with more edges than an iterator page, read with a time filter:
// pages end inside the record, and every edge comes once, in order.
func TestEdgesOfLargeRecordAcrossPages(t *testing.T) {
	g := openTestGraph(t)
	const n = 2*maxScan + 123
	links := make([]*linkgraph.Link, n)
	for i := range links {
		links[i] = &linkgraph.Link{URL: "https://example.com/" + uuid.NewString()}
	}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	src := links[0].ID
	edges := make([]*linkgraph.Edge, n)
	for i := range edges {
		// One edge in 50 passes the filter below, so pages end on
		// maxScan as well as on pageSize.
		at := t0.Add(time.Hour)
		if i%50 == 0 || i > n-2*pageSize {
			at = t0
		}
		edges[i] = &linkgraph.Edge{Src: src, Dst: links[i].ID, UpdatedAt: at}
	}
	// Other sources' records around it.
	edges = append(edges, &linkgraph.Edge{Src: links[1].ID, Dst: src, UpdatedAt: t0}, &linkgraph.Edge{Src: links[2].ID, Dst: src, UpdatedAt: t0})
	if err := g.UpsertEdges(edges); err != nil {
		t.Fatal(err)
	}
	var want []linkgraph.Edge
	for _, e := range edges {
		if e.UpdatedAt.Before(t0.Add(time.Minute)) {
			want = append(want, *e)
		}
	}
	slices.SortFunc(want, func(a, b linkgraph.Edge) int {
		if c := linkgraph.CompareIDs(a.Src, b.Src); c != 0 {
			return c
		}
		return linkgraph.CompareIDs(a.Dst, b.Dst)
	})
	it, err := g.Edges(uuid.Nil, uuid.Nil, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var got []linkgraph.Edge
	for it.Next() {
		got = append(got, *it.Edge())
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("iterated %d edges, want %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
}

func firstDiff(a, b []linkgraph.Edge) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// Removing every edge of a source removes its record, and removing none
// writes nothing.
func TestRemoveStaleEdgesRecord(t *testing.T) {
	g := openTestGraph(t)
	links := []*linkgraph.Link{{URL: "https://a.example/"}, {URL: "https://b.example/"}}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := g.UpsertEdge(&linkgraph.Edge{Src: links[0].ID, Dst: links[1].ID, UpdatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	before := g.db.db.Stats()
	if err := g.RemoveStaleEdges(links[0].ID, t0); err != nil {
		t.Fatal(err)
	}
	after := g.db.db.Stats()
	if d := after.Sub(&before); d.TxStats.GetWrite() != 0 {
		t.Fatalf("RemoveStaleEdges without stale edges wrote")
	}
	before = after
	if err := g.RemoveStaleEdges(links[0].ID, t0.Add(time.Microsecond)); err != nil {
		t.Fatal(err)
	}
	after = g.db.db.Stats()
	if d := after.Sub(&before); d.TxStats.GetWrite() == 0 {
		t.Fatalf("a removal that writes shows no write: the check above sees nothing")
	}
	err := g.db.view(func(tx *bbolt.Tx) error {
		if v := tx.Bucket(bucketOut).Get(links[0].ID[:]); v != nil {
			t.Errorf("record of %d bytes left for a source without edges", len(v))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func openTestGraph(t *testing.T) *Graph {
	t.Helper()
	g, err := Open(t.Context(), filepath.Join(t.TempDir(), "graph.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

package memory_test

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/graphtest"
	"github.com/linksrus/linksrus/linkgraph/memory"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) {
	graphtest.Run(t, func(*testing.T) linkgraph.Graph { return memory.New() })
}

func TestOpen(t *testing.T) {
	g, err := linkgraph.Open(t.Context(), "memory://")
	if err != nil {
		t.Fatalf("Open(memory://): %v", err)
	}
	if _, ok := g.(*memory.Graph); !ok {
		t.Fatalf("Open(memory://) = %T, want *memory.Graph", g)
	}
	if err := g.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, bad := range []string{"memory://host", "memory:///path", "memory://?x=1"} {
		if g, err := linkgraph.Open(t.Context(), bad); err == nil {
			g.Close()
			t.Errorf("Open(%q) succeeded, want an error", bad)
		}
	}
}

// Edges upserted in batches that mix refreshed and new destinations, out
// of order, are each stored once, and refreshed in place.
func TestEdgeBatchesMixNewAndRefreshed(t *testing.T) {
	g := memory.New()
	links := make([]*linkgraph.Link, 8)
	for i := range links {
		links[i] = &linkgraph.Link{URL: "https://example.com/" + string(rune('a'+i))}
	}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	src := links[0].ID
	batch := func(at time.Time, dsts ...int) {
		t.Helper()
		var es []*linkgraph.Edge
		for _, d := range dsts {
			es = append(es, &linkgraph.Edge{Src: src, Dst: links[d].ID, UpdatedAt: at})
		}
		if err := g.UpsertEdges(es); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	batch(t0, 5, 1, 3)
	batch(t0.Add(time.Hour), 2, 3, 7, 0, 5, 4, 6, 1)
	batch(t0.Add(2*time.Hour), 6, 3)
	it, err := g.Edges(uuid.Nil, uuid.Nil, t0.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	got := map[uuid.UUID]time.Time{}
	ids := map[uuid.UUID]bool{}
	for it.Next() {
		e := it.Edge()
		if _, dup := got[e.Dst]; dup {
			t.Errorf("edge to %s stored twice", e.Dst)
		}
		got[e.Dst] = e.UpdatedAt
		ids[e.ID] = true
	}
	if len(got) != 8 || len(ids) != 8 {
		t.Fatalf("%d edges with %d IDs, want 8 and 8", len(got), len(ids))
	}
	for d, want := range map[int]time.Time{3: t0.Add(2 * time.Hour), 6: t0.Add(2 * time.Hour), 5: t0.Add(time.Hour), 2: t0.Add(time.Hour)} {
		if !got[links[d].ID].Equal(want) {
			t.Errorf("edge to %d updated at %v, want %v", d, got[links[d].ID], want)
		}
	}
}

// The edge lists are most of the graph's memory in a links-only crawl
// (tens to a hundred edges a page), so a return to per-edge maps or stored
// edge IDs, about 100 bytes an edge, should fail a test and not only move
// a benchmark figure. 40 bytes leaves room for allocator rounding.
func TestHeapPerEdge(t *testing.T) {
	const (
		nLinks  = 20000
		perPage = 10
		batch   = 100 // pages an UpsertEdges call, as the crawler batches them
		maxHeap = 40.0
	)
	g := memory.New()
	defer g.Close()
	links := make([]*linkgraph.Link, nLinks)
	for i := range links {
		links[i] = &linkgraph.Link{URL: graphtest.BenchURL(i)}
	}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	before := heap()
	for first := 0; first < nLinks; first += batch {
		edges := make([]*linkgraph.Edge, 0, batch*perPage)
		for i := first; i < first+batch; i++ {
			for j := 1; j <= perPage; j++ {
				edges = append(edges, &linkgraph.Edge{Src: links[i].ID, Dst: links[(i+j*7919)%nLinks].ID})
			}
		}
		if err := g.UpsertEdges(edges); err != nil {
			t.Fatal(err)
		}
	}
	perEdge := float64(heap()-before) / (nLinks * perPage)
	t.Logf("%.1f heap bytes an edge", perEdge)
	if perEdge > maxHeap {
		t.Errorf("the graph holds %.1f heap bytes an edge, want at most %.0f", perEdge, maxHeap)
	}
	runtime.KeepAlive(links)
}

// Edge times are stored as two 32-bit halves: times before 1970 (negative)
// and far in the future come back unchanged and compare by sign with the
// bounds of Edges and RemoveStaleEdges.
func TestEdgeTimesRoundTrip(t *testing.T) {
	g := memory.New()
	defer g.Close()
	links := make([]*linkgraph.Link, 4)
	for i := range links {
		links[i] = &linkgraph.Link{URL: "https://example.com/" + string(rune('a'+i))}
	}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	times := []time.Time{
		time.Date(1, 1, 1, 0, 0, 0, 1000, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 999999000, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC),
	}
	for i, at := range times {
		e := &linkgraph.Edge{Src: links[0].ID, Dst: links[i+1].ID, UpdatedAt: at}
		if err := g.UpsertEdge(e); err != nil {
			t.Fatal(err)
		}
		if !e.UpdatedAt.Equal(at) {
			t.Errorf("edge upserted at %v stored at %v", at, e.UpdatedAt)
		}
	}
	count := func(before time.Time) int {
		t.Helper()
		it, err := g.Edges(uuid.Nil, uuid.Nil, before)
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		n := 0
		for it.Next() {
			if e := it.Edge(); !e.UpdatedAt.Equal(times[slices.Index([]uuid.UUID{links[1].ID, links[2].ID, links[3].ID}, e.Dst)]) {
				t.Errorf("edge to %s listed at %v", e.Dst, e.UpdatedAt)
			}
			n++
		}
		return n
	}
	epoch := time.Unix(0, 0)
	if n := count(epoch); n != 2 {
		t.Errorf("%d edges before 1970, want 2", n)
	}
	if n := count(times[2].Add(time.Microsecond)); n != 3 {
		t.Errorf("%d edges before %v, want 3", n, times[2].Add(time.Microsecond))
	}
	if err := g.RemoveStaleEdges(links[0].ID, epoch); err != nil {
		t.Fatal(err)
	}
	if n := count(times[2].Add(time.Microsecond)); n != 1 {
		t.Errorf("%d edges left after removing those before 1970, want 1", n)
	}
}

// A page that loses most of its edges keeps the right ones, and takes new
// ones afterwards (its list is reallocated smaller on the way).
func TestRemoveMostEdgesThenAdd(t *testing.T) {
	g := memory.New()
	defer g.Close()
	links := make([]*linkgraph.Link, 16)
	for i := range links {
		links[i] = &linkgraph.Link{URL: "https://example.com/" + string(rune('a'+i))}
	}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	src := links[0].ID
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	upsert := func(at time.Time, dsts ...int) {
		t.Helper()
		var es []*linkgraph.Edge
		for _, d := range dsts {
			es = append(es, &linkgraph.Edge{Src: src, Dst: links[d].ID, UpdatedAt: at})
		}
		if err := g.UpsertEdges(es); err != nil {
			t.Fatal(err)
		}
	}
	upsert(t0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	upsert(t0.Add(time.Hour), 9, 4)
	if err := g.RemoveStaleEdges(src, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	upsert(t0.Add(2*time.Hour), 12, 4, 11)
	it, err := g.Edges(uuid.Nil, uuid.Nil, t0.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	want := map[uuid.UUID]time.Time{
		links[4].ID:  t0.Add(2 * time.Hour),
		links[9].ID:  t0.Add(time.Hour),
		links[11].ID: t0.Add(2 * time.Hour),
		links[12].ID: t0.Add(2 * time.Hour),
	}
	n := 0
	for it.Next() {
		e := it.Edge()
		if w, ok := want[e.Dst]; !ok || !e.UpdatedAt.Equal(w) {
			t.Errorf("edge to %s at %v, want %v (listed: %v)", e.Dst, e.UpdatedAt, w, ok)
		}
		n++
	}
	if n != len(want) {
		t.Errorf("%d edges, want %d", n, len(want))
	}
}

// Edge lists are refreshed, grown, sorted and shrunk in place while
// iterators copy them: under -race, writers and readers running together
// must not race, and every iteration must still list each edge once, in
// (Src, Dst) order.
func TestEdgesWhileWriting(t *testing.T) {
	g := memory.New()
	defer g.Close()
	links := make([]*linkgraph.Link, 50)
	for i := range links {
		links[i] = &linkgraph.Link{URL: graphtest.BenchURL(i)}
	}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for round := range 50 {
				src := links[(w*25+round)%len(links)].ID
				var es []*linkgraph.Edge
				for j := range 1 + round%20 {
					es = append(es, &linkgraph.Edge{Src: src, Dst: links[(round*7+j*3)%len(links)].ID})
				}
				if err := g.UpsertEdges(es); err != nil {
					t.Error(err)
					return
				}
				if err := g.RemoveStaleEdges(src, time.Now().Add(-time.Millisecond)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			it, err := g.Edges(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
			if err != nil {
				t.Error(err)
				return
			}
			var prev *linkgraph.Edge
			for it.Next() {
				e := it.Edge()
				if prev != nil && (linkgraph.CompareIDs(prev.Src, e.Src) > 0 ||
					prev.Src == e.Src && linkgraph.CompareIDs(prev.Dst, e.Dst) >= 0) {
					t.Errorf("edge %s -> %s listed after %s -> %s", e.Src, e.Dst, prev.Src, prev.Dst)
				}
				prev = e
			}
			it.Close()
		}
	})
	wg.Wait()
}

package pagerank_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/pagerank"
)

// graphOf stores n links and the edges (by link number) in a memory graph.
func graphOf(t testing.TB, n int, edges [][2]int) (*memory.Graph, []uuid.UUID) {
	t.Helper()
	g := memory.New()
	links := make([]*linkgraph.Link, n)
	for i := range links {
		links[i] = &linkgraph.Link{URL: fmt.Sprintf("https://example.com/%d", i)}
	}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	es := make([]*linkgraph.Edge, 0, len(edges))
	for _, e := range edges {
		es = append(es, &linkgraph.Edge{Src: links[e[0]].ID, Dst: links[e[1]].ID})
	}
	if len(es) > 0 {
		if err := g.UpsertEdges(es); err != nil {
			t.Fatal(err)
		}
	}
	ids := make([]uuid.UUID, n)
	for i, l := range links {
		ids[i] = l.ID
	}
	return g, ids
}

// reference is the textbook power iteration on the dense transition
// matrix, run to a much tighter tolerance.
func reference(n int, edges [][2]int, d float64) []float64 {
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
	}
	for _, e := range edges {
		adj[e[0]][e[1]] = true
	}
	out := make([]int, n)
	for i := range n {
		for j := range n {
			if adj[i][j] {
				out[i]++
			}
		}
	}
	r := make([]float64, n)
	for i := range r {
		r[i] = 1 / float64(n)
	}
	for range 1000 {
		next := make([]float64, n)
		for j := range n {
			sum := 0.0
			for i := range n {
				switch {
				case out[i] == 0:
					sum += r[i] / float64(n) // dangling: to everyone
				case adj[i][j]:
					sum += r[i] / float64(out[i])
				}
			}
			next[j] = (1-d)/float64(n) + d*sum
		}
		r = next
	}
	return r
}

func randomGraph(rng *rand.Rand, n int) [][2]int {
	seen := map[[2]int]bool{}
	var edges [][2]int
	for i := range n {
		if rng.IntN(5) == 0 {
			continue // a dangling page
		}
		for range rng.IntN(6) {
			e := [2]int{i, rng.IntN(n)}
			if !seen[e] {
				seen[e] = true
				edges = append(edges, e)
			}
		}
	}
	return edges
}

func TestAgainstReference(t *testing.T) {
	cases := map[string]struct {
		n     int
		edges [][2]int
	}{
		"cycle":           {3, [][2]int{{0, 1}, {1, 2}, {2, 0}}},
		"star into a hub": {4, [][2]int{{1, 0}, {2, 0}, {3, 0}}}, // the hub dangles
		"self loop":       {2, [][2]int{{0, 0}, {0, 1}}},
		"no edges":        {5, nil},
		"two components":  {5, [][2]int{{0, 1}, {1, 0}, {2, 3}, {3, 4}, {4, 2}}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5 {
		n := 20 + rng.IntN(80)
		cases[fmt.Sprintf("random %d", i)] = struct {
			n     int
			edges [][2]int
		}{n, randomGraph(rng, n)}
	}
	for name, c := range cases {
		// In memory, grouped by target; in memory as pairs only (no room
		// to group them); spilled after 3 edges.
		for _, limit := range []int64{0, max(8*int64(len(c.edges)), 8), 24} {
			t.Run(fmt.Sprintf("%s/limit %d", name, limit), func(t *testing.T) {
				g, ids := graphOf(t, c.n, c.edges)
				// A tight tolerance, to compare with the reference's fixed
				// point: the default's 1e-6 of L1 change leaves each rank
				// within about 1e-5 of it.
				res, err := pagerank.Compute(context.Background(), g, pagerank.Options{MemoryLimit: limit, TempDir: t.TempDir(), Tolerance: 1e-13, MaxIterations: 1000})
				if err != nil {
					t.Fatal(err)
				}
				want := reference(c.n, c.edges, pagerank.DefaultDamping)
				byID := map[uuid.UUID]float64{}
				sum := 0.0
				for i, id := range res.IDs {
					byID[id] = res.Scores[i]
					sum += res.Scores[i]
				}
				if math.Abs(sum-1) > 1e-6 {
					t.Errorf("ranks sum to %v", sum)
				}
				for i, id := range ids {
					if got := byID[id]; math.Abs(got-want[i]) > 1e-10 {
						t.Errorf("page %d: rank %v, reference %v", i, got, want[i])
					}
				}
				if res.Delta >= 1e-13 && res.Iterations < 1000 {
					t.Errorf("stopped after %d iterations at L1 change %v", res.Iterations, res.Delta)
				}
			})
		}
	}
}

// A page linked from everywhere ranks above a leaf.
func TestHubRanksAboveLeaf(t *testing.T) {
	edges := [][2]int{}
	for i := 1; i < 10; i++ {
		edges = append(edges, [2]int{0, i}, [2]int{i, 0})
	}
	g, ids := graphOf(t, 11, append(edges, [2]int{1, 10}))
	res, err := pagerank.Compute(context.Background(), g, pagerank.Options{})
	if err != nil {
		t.Fatal(err)
	}
	score := map[uuid.UUID]float64{}
	for i, id := range res.IDs {
		score[id] = res.Scores[i]
	}
	if score[ids[0]] <= score[ids[10]] {
		t.Errorf("hub %v <= leaf %v", score[ids[0]], score[ids[10]])
	}
}

// scores is a Scorer that records its calls.
type scores struct {
	m     map[uuid.UUID]float64
	calls int
	after func(calls int)
}

func (s *scores) UpdateScores(ids []uuid.UUID, v []float64) error {
	s.calls++
	for i, id := range ids {
		s.m[id] = v[i]
	}
	if s.after != nil {
		s.after(s.calls)
	}
	return nil
}

func TestWriteAndCancel(t *testing.T) {
	g, _ := graphOf(t, 50, randomGraph(rand.New(rand.NewPCG(3, 4)), 50))
	res, err := pagerank.Compute(context.Background(), g, pagerank.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := &scores{m: map[uuid.UUID]float64{}}
	if err := res.Write(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if len(s.m) != 50 {
		t.Errorf("%d scores written, want 50", len(s.m))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := pagerank.Compute(ctx, g, pagerank.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Compute with a cancelled context: %v", err)
	}
	if _, err := pagerank.Compute(context.Background(), g, pagerank.Options{Damping: 1}); !errors.Is(err, pagerank.ErrOptions) {
		t.Errorf("damping 1: %v", err)
	}
}

// TestWriteInBatches: the scores go in chunks, every one written relative
// to the average; a canceled context stops between chunks.
func TestWriteInBatches(t *testing.T) {
	const n = 10_000
	res := &pagerank.Result{IDs: make([]uuid.UUID, n), Scores: make([]float64, n)}
	for i := range n {
		res.IDs[i], res.Scores[i] = uuid.New(), 1/float64(n)
	}
	b := &scores{m: map[uuid.UUID]float64{}}
	if err := res.Write(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	if len(b.m) != n || b.calls != 3 {
		t.Errorf("%d scores in %d calls, want %d in 3", len(b.m), b.calls, n)
	}
	// Stored relative to the average link's: here every link is one.
	for id, s := range b.m {
		if math.Abs(s-1) > 1e-9 {
			t.Fatalf("%s stored %v, want 1 (PageRank 1/%d relative to the average)", id, s, n)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	b = &scores{m: map[uuid.UUID]float64{}, after: func(int) { cancel() }}
	if err := res.Write(ctx, b); !errors.Is(err, context.Canceled) || b.calls != 1 {
		t.Errorf("Write canceled after the first chunk = %v after %d calls", err, b.calls)
	}
}

// BenchmarkCompute ranks a random graph of the rust documentation's shape
// (30,000 pages, 25 links each) from a memory graph, in 50 iterations as a
// crawled graph needs (a random one converges in far fewer): "grouped" iterates
// over the edges grouped by target on every CPU, "pairs" streams the
// pairs (a memory limit with no room to group them).
func BenchmarkCompute(b *testing.B) {
	const pages, fanout = 30000, 25
	rng := rand.New(rand.NewPCG(5, 6))
	var edges [][2]int
	for i := range pages {
		for range fanout {
			edges = append(edges, [2]int{i, rng.IntN(pages) * rng.IntN(pages) / pages})
		}
	}
	g, _ := graphOf(b, pages, edges)
	for _, c := range []struct {
		name  string
		limit int64
	}{{"grouped", 0}, {"pairs", 8 * int64(len(edges))}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res, err := pagerank.Compute(context.Background(), g, pagerank.Options{MemoryLimit: c.limit, Tolerance: 1e-300, MaxIterations: 50})
				if err != nil || res.Iterations != 50 {
					b.Fatal(res.Iterations, err)
				}
			}
		})
	}
}

// pairGraph is a graph that lists its edges as pairs too (as the bolt
// graph does), counting the pairs it lists, and failing after failAfter
// of them if that is set.
type pairGraph struct {
	*memory.Graph
	pairs     int
	failAfter int
}

var errPairs = errors.New("pairs failed")

func (g *pairGraph) EdgePairs(before time.Time, fn func(src, dst uuid.UUID) error) error {
	it, err := g.Edges(uuid.Nil, uuid.Nil, before)
	if err != nil {
		return err
	}
	defer it.Close()
	for it.Next() {
		if g.failAfter > 0 && g.pairs == g.failAfter {
			return errPairs
		}
		g.pairs++
		if err := fn(it.Edge().Src, it.Edge().Dst); err != nil {
			return err
		}
	}
	return it.Error()
}

// A graph that lists its edges as pairs is read that way, and ranks as
// when read edge by edge; its errors end Compute.
func TestComputeReadsEdgePairs(t *testing.T) {
	edges := randomGraph(rand.New(rand.NewPCG(9, 10)), 60)
	g, _ := graphOf(t, 60, edges)
	want, err := pagerank.Compute(context.Background(), g, pagerank.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pg := &pairGraph{Graph: g}
	got, err := pagerank.Compute(context.Background(), pg, pagerank.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if pg.pairs != len(edges) || got.Edges != int64(len(edges)) {
		t.Fatalf("%d pairs listed, %d edges ranked; want %d", pg.pairs, got.Edges, len(edges))
	}
	if !slices.Equal(got.IDs, want.IDs) || !slices.Equal(got.Scores, want.Scores) {
		t.Fatalf("ranks differ read as pairs")
	}
	pg = &pairGraph{Graph: g, failAfter: 5}
	if _, err := pagerank.Compute(context.Background(), pg, pagerank.Options{}); !errors.Is(err, errPairs) {
		t.Fatalf("Compute = %v, want the pairs' error", err)
	}
}

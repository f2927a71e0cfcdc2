package pagerank

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Pulling rank along edges grouped by target, split among workers in any
// way, gives what pushing it along the pairs gives.
func TestPullMatchesPush(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 1000
	e := newEdgeStore(1<<30, t.TempDir())
	var pairs [][2]uint32
	for range 20000 {
		// Skewed targets, so that equal shares of edges are unequal
		// ranges of pages.
		s, t := uint32(rng.IntN(n)), uint32(rng.IntN(n)*rng.IntN(n)/n)
		pairs = append(pairs, [2]uint32{s, t})
		if err := e.add(s, t); err != nil {
			panic(err) // in memory: add cannot fail
		}
	}
	rank, share := make([]float64, n), make([]float64, n)
	for i := range n {
		rank[i] = rng.Float64()
		share[i] = rng.Float64()
	}
	const base, d = 0.001, 0.85
	want := make([]float64, n)
	for i := range want {
		want[i] = base
	}
	for _, p := range pairs {
		want[p[1]] += d * share[p[0]]
	}
	wantDelta := 0.0
	for i := range want {
		wantDelta += math.Abs(want[i] - rank[i])
	}

	in := e.byTarget(n, 1<<30)
	if in == nil {
		t.Fatal("edges not grouped within a large limit")
	}
	for _, parts := range [][]int{{0, n}, {0, 1, n}, {0, 10, 500, 501, n}, {0, n / 2, n / 2, n}, in.parts} {
		in.parts = parts
		next := make([]float64, n)
		delta := in.pull(rank, next, share, base, d)
		for i := range next {
			if math.Abs(next[i]-want[i]) > 1e-12 {
				t.Fatalf("parts %v: page %d gets %v, want %v", parts, i, next[i], want[i])
			}
		}
		if math.Abs(delta-wantDelta) > 1e-9 {
			t.Errorf("parts %v: delta %v, want %v", parts, delta, wantDelta)
		}
	}
}

// byTarget splits the edges among workers by their number, and declines
// edges it has no room to group.
func TestByTargetParts(t *testing.T) {
	e := newEdgeStore(1<<30, t.TempDir())
	const n, edges = 100, 4 * pullPerWorker
	for i := range edges {
		_ = e.add(uint32(i%n), uint32(i%n)) // every page the same in-degree
	}
	if in := e.byTarget(n, 12*edges); in != nil {
		t.Fatal("grouped the edges beyond the limit")
	}
	in := e.byTarget(n, 1<<30)
	if in == nil || in.parts[0] != 0 || in.parts[len(in.parts)-1] != n {
		t.Fatalf("parts %v", in.parts)
	}
	for w := 1; w < len(in.parts); w++ {
		got := int(in.start[in.parts[w]] - in.start[in.parts[w-1]])
		if want := edges / (len(in.parts) - 1); math.Abs(float64(got-want)) > float64(edges/n) {
			t.Errorf("worker %d gets %d edges, want about %d (parts %v)", w-1, got, want, in.parts)
		}
	}
}

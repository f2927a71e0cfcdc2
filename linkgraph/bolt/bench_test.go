package bolt

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/graphtest"
	"github.com/linksrus/linksrus/pagerank"
)

func BenchmarkGraph(b *testing.B) {
	graphtest.Bench(b, func(b *testing.B) linkgraph.Graph {
		g, err := Open(b.Context(), filepath.Join(b.TempDir(), "graph.db"), Options{})
		if err != nil {
			b.Fatal(err)
		}
		return g
	})
}

// BenchmarkGraphNoSync is BenchmarkGraph with ?nosync=1, to show what the
// fsync per commit costs.
func BenchmarkGraphNoSync(b *testing.B) {
	graphtest.Bench(b, func(b *testing.B) linkgraph.Graph {
		g, err := Open(b.Context(), filepath.Join(b.TempDir(), "graph.db"), Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		return g
	})
}

// BenchmarkDiskPerLink reports the file size per link for a graph of
// 100,000 links with 10 edges each.
func BenchmarkDiskPerLink(b *testing.B) {
	const n = 100000
	for b.Loop() {
		path := filepath.Join(b.TempDir(), "graph.db")
		g, err := Open(b.Context(), path, Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := graphtest.Load(g, n, 0, 1000); err != nil {
			b.Fatal(err)
		}
		linksOnly := fileSize(b, path)
		g.Close()
		g, err = Open(b.Context(), path, Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := graphtest.Load(g, n, 10, 1000); err != nil {
			b.Fatal(err)
		}
		g.Close()
		b.ReportMetric(float64(linksOnly)/n, "diskB/link(no-edges)")
		b.ReportMetric(float64(fileSize(b, path))/n, "diskB/link(10-edges)")
	}
}

func fileSize(tb testing.TB, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

// TestLoad upserts LINKSRUS_LOAD_LINKS links with 10 edges each into a
// fresh store and logs the throughput. It is too slow for CI and runs only
// when asked:
//
//	LINKSRUS_LOAD_LINKS=1000000 go test -run TestLoad -v -timeout 1h ./linkgraph/bolt/
func TestLoad(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("LINKSRUS_LOAD_LINKS"))
	if n <= 0 {
		t.Skip("load test skipped: set LINKSRUS_LOAD_LINKS (e.g. 1000000) to run it")
	}
	dir := os.Getenv("LINKSRUS_LOAD_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, "load-graph.db")
	g, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := graphtest.Load(g, n, 10, 1000)
	if err != nil {
		g.Close()
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	size := fileSize(t, path)
	t.Logf("bolt: %v; file %d MiB (%.0f bytes/link)", res, size>>20, float64(size)/float64(n))
	rankLoaded(t, path)
	os.Remove(path)
}

// rankLoaded times PageRank over the loaded graph, as `linksrus rank` runs
// it (the bound: 60 s for 1M links with 10 edges each).
func rankLoaded(t *testing.T, path string) {
	g, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	start := time.Now()
	r, err := pagerank.Compute(context.Background(), g, pagerank.Options{TempDir: filepath.Dir(path)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("pagerank: %d links, %d edges, %d iterations (L1 change %.2g) in %v", len(r.IDs), r.Edges, r.Iterations, r.Delta, time.Since(start).Round(time.Millisecond))
}

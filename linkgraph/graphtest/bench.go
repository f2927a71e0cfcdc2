package graphtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
)

// Batch sizes of the benchmarks: a crawled page typically yields some tens
// to a hundred links, and the crawler writes them in one call.
const (
	benchLinkBatch = 100
	benchEdgeBatch = 100
	benchScanSize  = 10000
)

// NewBenchGraph returns a new, empty graph for one benchmark.
type NewBenchGraph func(b *testing.B) linkgraph.Graph

// Bench runs the shared benchmarks as sub-benchmarks of b: batch upserts of
// new and of known links, batch upserts of edges, and scans of links and
// edges. Each reports its rate (links/s, edges/s) beside ns/op.
func Bench(b *testing.B, newGraph NewBenchGraph) {
	b.Run("UpsertLinksNew", func(b *testing.B) {
		g := openBench(b, newGraph)
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			if err := g.UpsertLinks(benchLinks(n, benchLinkBatch)); err != nil {
				b.Fatal(err)
			}
			n += benchLinkBatch
		}
		reportRate(b, n, "links/s")
	})
	b.Run("UpsertLinksKnown", func(b *testing.B) {
		g := openBench(b, newGraph)
		const known = 10 * benchLinkBatch
		if err := g.UpsertLinks(benchLinks(0, known)); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			if err := g.UpsertLinks(benchLinks(n%known, benchLinkBatch)); err != nil {
				b.Fatal(err)
			}
			n += benchLinkBatch
		}
		reportRate(b, n, "links/s")
	})
	b.Run("UpsertEdges", func(b *testing.B) {
		g := openBench(b, newGraph)
		links := benchLinks(0, 1000)
		if err := g.UpsertLinks(links); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			edges := make([]*linkgraph.Edge, benchEdgeBatch)
			for i := range edges {
				k := n + i
				edges[i] = &linkgraph.Edge{Src: links[(k/len(links))%len(links)].ID, Dst: links[k%len(links)].ID}
			}
			if err := g.UpsertEdges(edges); err != nil {
				b.Fatal(err)
			}
			n += benchEdgeBatch
		}
		reportRate(b, n, "edges/s")
	})
	b.Run("ScanLinks", func(b *testing.B) {
		g := openBench(b, newGraph)
		links := loadLinks(b, g, benchScanSize)
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			n += countLinks(b, g, time.Now())
		}
		if n != b.N*len(links) {
			b.Fatalf("scanned %d links in %d scans of %d", n, b.N, len(links))
		}
		reportRate(b, n, "links/s")
	})
	b.Run("ScanEdges", func(b *testing.B) {
		g := openBench(b, newGraph)
		links := loadLinks(b, g, benchScanSize/10)
		edges := make([]*linkgraph.Edge, 0, 10*len(links))
		for i, l := range links {
			for j := 1; j <= 10; j++ {
				edges = append(edges, &linkgraph.Edge{Src: l.ID, Dst: links[(i+j)%len(links)].ID})
			}
		}
		if err := g.UpsertEdges(edges); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			it, err := g.Edges(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
			if err != nil {
				b.Fatal(err)
			}
			for it.Next() {
				n++
			}
			if err := it.Error(); err != nil {
				b.Fatal(err)
			}
			it.Close()
		}
		reportRate(b, n, "edges/s")
	})
}

func openBench(b *testing.B, newGraph NewBenchGraph) linkgraph.Graph {
	g := newGraph(b)
	b.Cleanup(func() {
		if err := g.Close(); err != nil {
			b.Errorf("Close: %v", err)
		}
	})
	return g
}

// benchLinks returns n links with realistic URL lengths, numbered from first.
func benchLinks(first, n int) []*linkgraph.Link {
	links := make([]*linkgraph.Link, n)
	for i := range links {
		links[i] = &linkgraph.Link{URL: BenchURL(first + i)}
	}
	return links
}

// BenchURL returns the i-th URL of the benchmark data: about 50 bytes,
// spread over a thousand hosts.
func BenchURL(i int) string {
	return fmt.Sprintf("https://host-%d.example.com/articles/page-%d.html", i%1000, i)
}

func loadLinks(b *testing.B, g linkgraph.Graph, n int) []*linkgraph.Link {
	var all []*linkgraph.Link
	for i := 0; i < n; i += 1000 {
		batch := benchLinks(i, min(1000, n-i))
		if err := g.UpsertLinks(batch); err != nil {
			b.Fatal(err)
		}
		all = append(all, batch...)
	}
	return all
}

func countLinks(b *testing.B, g linkgraph.Graph, before time.Time) int {
	it, err := g.Links(uuid.Nil, uuid.Nil, before)
	if err != nil {
		b.Fatal(err)
	}
	defer it.Close()
	n := 0
	for it.Next() {
		n++
	}
	if err := it.Error(); err != nil {
		b.Fatal(err)
	}
	return n
}

func reportRate(b *testing.B, n int, unit string) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(n)/s, unit)
	}
}

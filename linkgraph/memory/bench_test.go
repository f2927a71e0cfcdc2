package memory_test

import (
	"runtime"
	"testing"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/graphtest"
	"github.com/linksrus/linksrus/linkgraph/memory"
)

func BenchmarkGraph(b *testing.B) {
	graphtest.Bench(b, func(*testing.B) linkgraph.Graph { return memory.New() })
}

// BenchmarkMemoryPerLink reports the heap the graph holds per link (with
// URLs of about 50 bytes) and per edge.
func BenchmarkMemoryPerLink(b *testing.B) {
	const n = 100000
	b.ReportAllocs()
	for b.Loop() {
		links := make([]*linkgraph.Link, n)
		for i := range links {
			links[i] = &linkgraph.Link{URL: graphtest.BenchURL(i)}
		}
		// Each reading is taken with the inputs already allocated, so the
		// differences are the graph's own memory.
		g := memory.New()
		m0 := heap()
		if err := g.UpsertLinks(links); err != nil {
			b.Fatal(err)
		}
		m1 := heap()
		edges := make([]*linkgraph.Edge, 0, 10*n)
		for i, l := range links {
			for j := 1; j <= 10; j++ {
				edges = append(edges, &linkgraph.Edge{Src: l.ID, Dst: links[(i+j*7919)%n].ID})
			}
		}
		m2 := heap()
		if err := g.UpsertEdges(edges); err != nil {
			b.Fatal(err)
		}
		m3 := heap()
		b.ReportMetric(float64(m1-m0)/n, "heapB/link(excl.URL)")
		b.ReportMetric(float64(m3-m2)/(10*n), "heapB/edge")
		runtime.KeepAlive(links)
		runtime.KeepAlive(edges)
		g.Close()
	}
}

func heap() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

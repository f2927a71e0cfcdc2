package bolt_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/bolt"
	"github.com/linksrus/linksrus/linkgraph/graphtest"
)

// The shape of a crawl's graph writes: crawlPages pages with crawlFanout
// outgoing links each, written crawlBatch pages at a time the way
// crawler.GraphUpdater writes them (one UpsertEdges per batch, then one
// RemoveStaleEdges per page), into a pool of crawlPool known links.
const (
	crawlPages  = 1000
	crawlFanout = 100
	crawlBatch  = 64 // crawler.DefaultStoreBatchSize
	crawlPool   = 20000
)

// BenchmarkCrawl measures the edge writes of a crawl. "new" writes the
// pages' edges into a graph that has none (a first crawl); "recrawl"
// rewrites them in a graph that holds them already, with one destination
// in ten changed, so RemoveStaleEdges has edges to drop. One op is the
// whole crawl of crawlPages pages; edges/s counts the edges upserted.
func BenchmarkCrawl(b *testing.B) {
	for _, mode := range []struct {
		name string
		opts bolt.Options
	}{{"nosync", bolt.Options{NoSync: true}}, {"fsync", bolt.Options{}}} {
		b.Run("new/"+mode.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				g, links := openCrawlGraph(b, mode.opts)
				b.StartTimer()
				crawl(b, g, links, 0)
				b.StopTimer()
				if err := g.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			reportRate(b, b.N*crawlPages*crawlFanout, "edges/s")
		})
		b.Run("recrawl/"+mode.name, func(b *testing.B) {
			g, links := openCrawlGraph(b, mode.opts)
			defer g.Close()
			crawl(b, g, links, 0)
			b.ReportAllocs()
			round := 1
			for b.Loop() {
				crawl(b, g, links, round)
				round++
			}
			reportRate(b, b.N*crawlPages*crawlFanout, "edges/s")
		})
	}
}

func openCrawlGraph(b *testing.B, opts bolt.Options) (*bolt.Graph, []*linkgraph.Link) {
	g, err := bolt.Open(b.Context(), filepath.Join(b.TempDir(), "graph.db"), opts)
	if err != nil {
		b.Fatal(err)
	}
	links := make([]*linkgraph.Link, 0, crawlPool)
	for i := 0; i < crawlPool; i += 1000 {
		batch := make([]*linkgraph.Link, 1000)
		for j := range batch {
			batch[j] = &linkgraph.Link{URL: graphtest.BenchURL(i + j)}
		}
		if err := g.UpsertLinks(batch); err != nil {
			b.Fatal(err)
		}
		links = append(links, batch...)
	}
	return g, links
}

// crawl writes the edges of every page as crawl round round sees them:
// destination j of page i is the same in every round, except that one in
// ten moves on each round.
func crawl(b *testing.B, g *bolt.Graph, links []*linkgraph.Link, round int) {
	edges := make([]*linkgraph.Edge, 0, crawlBatch*crawlFanout)
	for first := 0; first < crawlPages; first += crawlBatch {
		last := min(first+crawlBatch, crawlPages)
		staleBefore := time.Now()
		edges = edges[:0]
		for i := first; i < last; i++ {
			for j := range crawlFanout {
				k := i*7919 + j*104729
				if j%10 == 0 {
					k += round * 31
				}
				edges = append(edges, &linkgraph.Edge{Src: links[i].ID, Dst: links[k%len(links)].ID})
			}
		}
		if err := g.UpsertEdges(edges); err != nil {
			b.Fatal(err)
		}
		for i := first; i < last; i++ {
			if err := g.RemoveStaleEdges(links[i].ID, staleBefore); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func reportRate(b *testing.B, n int, unit string) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(n)/s, unit)
	}
}

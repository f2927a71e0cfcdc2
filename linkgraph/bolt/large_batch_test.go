package bolt_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/bolt"
)

// BenchmarkLargeBatch upserts one page's worth of links and edges for pages
// with very many links (a hostile page can carry 100,000): the cost per link
// must not grow with the batch. Compare ns/link across the sizes.
func BenchmarkLargeBatch(b *testing.B) {
	for _, n := range []int{1000, 10000, 40000} {
		b.Run(fmt.Sprintf("links=%d", n), func(b *testing.B) {
			g, err := bolt.Open(b.Context(), filepath.Join(b.TempDir(), "g.db"), bolt.Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			defer g.Close()
			b.ReportAllocs()
			for iter := 0; b.Loop(); iter++ {
				links := make([]*linkgraph.Link, n)
				for i := range links {
					links[i] = &linkgraph.Link{URL: fmt.Sprintf("http://h/%d/%d", iter, i)}
				}
				if err := g.UpsertLinks(links); err != nil {
					b.Fatal(err)
				}
				edges := make([]*linkgraph.Edge, n)
				for i := range edges {
					edges[i] = &linkgraph.Edge{Src: links[0].ID, Dst: links[i].ID}
				}
				if err := g.UpsertEdges(edges); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/link")
		})
	}
}

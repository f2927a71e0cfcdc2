package graphtest

import (
	"fmt"
	"time"

	"github.com/linksrus/linksrus/linkgraph"
)

// LoadResult is what Load measured.
type LoadResult struct {
	Links, Edges             int
	LinkTime, EdgeTime       time.Duration
	LinksPerSec, EdgesPerSec float64
}

// String summarises the load as counts, times and rates.
func (r LoadResult) String() string {
	return fmt.Sprintf("%d links in %v (%.0f links/s), %d edges in %v (%.0f edges/s)",
		r.Links, r.LinkTime.Round(time.Millisecond), r.LinksPerSec, r.Edges, r.EdgeTime.Round(time.Millisecond), r.EdgesPerSec)
}

// Load fills g with links links and edgesPerLink edges leaving each, in
// batches of batch links and batch edges (the shape of a bulk import or of
// many crawled pages written together), and measures the throughput. It is
// for the large load tests the backends run on demand, not in CI.
func Load(g linkgraph.Graph, links, edgesPerLink, batch int) (LoadResult, error) {
	res := LoadResult{Links: links, Edges: links * edgesPerLink}
	ids := make([]linkgraph.Link, 0, links)
	start := time.Now()
	for i := 0; i < links; i += batch {
		b := benchLinks(i, min(batch, links-i))
		if err := g.UpsertLinks(b); err != nil {
			return res, fmt.Errorf("load links %d..: %w", i, err)
		}
		for _, l := range b {
			ids = append(ids, *l)
		}
	}
	res.LinkTime = time.Since(start)

	start = time.Now()
	edges := make([]*linkgraph.Edge, 0, batch)
	for i := range ids {
		for j := 1; j <= edgesPerLink; j++ {
			// Destinations spread over the graph the way links between
			// hosts do, not just to neighbours.
			dst := (i + j*7919) % len(ids)
			edges = append(edges, &linkgraph.Edge{Src: ids[i].ID, Dst: ids[dst].ID})
			if len(edges) == batch {
				if err := g.UpsertEdges(edges); err != nil {
					return res, fmt.Errorf("load edges of link %d: %w", i, err)
				}
				edges = edges[:0]
			}
		}
	}
	if len(edges) > 0 {
		if err := g.UpsertEdges(edges); err != nil {
			return res, fmt.Errorf("load edges: %w", err)
		}
	}
	res.EdgeTime = time.Since(start)
	res.LinksPerSec = float64(res.Links) / res.LinkTime.Seconds()
	res.EdgesPerSec = float64(res.Edges) / res.EdgeTime.Seconds()
	return res, nil
}

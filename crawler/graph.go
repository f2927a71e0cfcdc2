package crawler

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/pipeline"
)

// GraphUpdater is the stage that writes a crawled page to the link graph in
// three batch calls, whatever the number of links: one UpsertLinks for the
// page itself (its RetrievedAt refreshed) and every link found on it, one
// UpsertEdges for an edge to each followed link, and one RemoveStaleEdges
// that deletes the page's edges that were not refreshed, that is the links
// the page no longer has. No-follow links are stored without an edge.
type GraphUpdater struct {
	graph Graph
	now   func() time.Time
}

// NewGraphUpdater returns the graph updater stage writing to g.
func NewGraphUpdater(g Graph) *GraphUpdater {
	return &GraphUpdater{graph: g, now: time.Now}
}

// graphBatch holds one page's links and edges; pooled so that pages reuse
// the slices and structs instead of allocating them.
type graphBatch struct {
	links    []linkgraph.Link
	linkPtrs []*linkgraph.Link
	edges    []linkgraph.Edge
	edgePtrs []*linkgraph.Edge
}

var graphBatchPool = sync.Pool{New: func() any { return new(graphBatch) }}

func (b *graphBatch) reset() {
	clear(b.links) // drop the URL strings
	clear(b.linkPtrs)
	clear(b.edgePtrs)
	b.links, b.linkPtrs = b.links[:0], b.linkPtrs[:0]
	b.edges, b.edgePtrs = b.edges[:0], b.edgePtrs[:0]
}

// Process implements pipeline.Processor.
func (u *GraphUpdater) Process(_ context.Context, pp pipeline.Payload) (pipeline.Payload, error) {
	p, err := asPayload(pp)
	if err != nil {
		return nil, fmt.Errorf("crawler: update graph: %w", err)
	}
	b := graphBatchPool.Get().(*graphBatch)
	defer func() {
		b.reset()
		graphBatchPool.Put(b)
	}()

	retrieved := p.FetchedAt
	if retrieved.IsZero() {
		retrieved = u.now()
	}
	// links[0] is the page; then the followed links, then the others.
	b.links = append(b.links, linkgraph.Link{URL: p.URL, RetrievedAt: retrieved})
	for _, l := range p.Links {
		b.links = append(b.links, linkgraph.Link{URL: l})
	}
	for _, l := range p.NoFollowLinks {
		b.links = append(b.links, linkgraph.Link{URL: l})
	}
	for i := range b.links {
		b.linkPtrs = append(b.linkPtrs, &b.links[i])
	}
	if err := u.graph.UpsertLinks(b.linkPtrs); err != nil {
		return nil, fmt.Errorf("crawler: update graph: upsert links of %q: %w", p.URL, err)
	}

	src := b.links[0].ID
	staleBefore := u.now()
	for _, dst := range b.links[1 : 1+len(p.Links)] {
		b.edges = append(b.edges, linkgraph.Edge{Src: src, Dst: dst.ID})
	}
	for i := range b.edges {
		b.edgePtrs = append(b.edgePtrs, &b.edges[i])
	}
	if len(b.edgePtrs) > 0 {
		if err := u.graph.UpsertEdges(b.edgePtrs); err != nil {
			return nil, fmt.Errorf("crawler: update graph: upsert edges of %q: %w", p.URL, err)
		}
	}
	if err := u.graph.RemoveStaleEdges(src, staleBefore); err != nil {
		return nil, fmt.Errorf("crawler: update graph: remove stale edges of %q: %w", p.URL, err)
	}
	return p, nil
}

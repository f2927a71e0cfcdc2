package engine

import (
	"net/url"
	"sync"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler/scope"
	"github.com/linksrus/linksrus/linkgraph"
)

// discoveringGraph is the crawler.Graph a run hands to the crawler: it
// writes through to the real graph and, once a page's links and edges are
// stored (and so have IDs), queues the followed links that are in scope,
// in the run's partition and not retrieved recently enough. Following
// edges rather than links is what keeps rel=nofollow links, and the links
// of pages marked nofollow, out of the frontier.
type discoveringGraph struct {
	Graph
	run *Run

	mu sync.Mutex
	// candidates holds the not yet retrieved links of the batch being
	// stored, by ID, until its edges are seen. The graph updater stores a
	// batch's links and then its edges, one batch at a time, so each
	// batch's candidates replace the last one's.
	candidates map[uuid.UUID]linkgraph.Link
	// referrers keeps a few pages linking to each queued link
	// (Options.Referrers).
	referrers map[uuid.UUID][]uuid.UUID
}

func newDiscoveringGraph(g Graph, run *Run) *discoveringGraph {
	return &discoveringGraph{
		Graph:      g,
		run:        run,
		candidates: make(map[uuid.UUID]linkgraph.Link),
		referrers:  make(map[uuid.UUID][]uuid.UUID),
	}
}

// UpsertLinks implements crawler.Graph.
func (g *discoveringGraph) UpsertLinks(links []*linkgraph.Link) error {
	if err := g.Graph.UpsertLinks(links); err != nil {
		return err
	}
	var fresh map[uuid.UUID]linkgraph.Link
	for _, l := range links {
		if !l.RetrievedAt.Before(g.run.cutoff) || g.run.frontier.isSeen(l.URL) {
			continue
		}
		if fresh == nil {
			fresh = make(map[uuid.UUID]linkgraph.Link)
		}
		// Keep RetrievedAt: the crawler relies on it to tell a page
		// fetched before, whose stale edges must go, from a new one.
		fresh[l.ID] = *l
	}
	if fresh != nil {
		g.mu.Lock()
		g.candidates = fresh
		g.mu.Unlock()
	}
	return nil
}

// UpsertEdges implements crawler.Graph.
func (g *discoveringGraph) UpsertEdges(edges []*linkgraph.Edge) error {
	if err := g.Graph.UpsertEdges(edges); err != nil {
		return err
	}
	for _, e := range edges {
		if err := g.follow(e.Src, e.Dst); err != nil {
			return err
		}
	}
	if s := g.run.frontier.shared; s != nil {
		// Before the pages are marked retrieved: a crash must not lose
		// the links of a page it crawled.
		return s.flushEnqueued(g.run.ctx())
	}
	return nil
}

// follow handles the edge src → dst of a page just crawled.
func (g *discoveringGraph) follow(src, dst uuid.UUID) error {
	r := g.run
	g.mu.Lock()
	if n := r.opts.Referrers; n > 0 {
		if refs := g.referrers[dst]; len(refs) < n {
			g.referrers[dst] = append(refs, src)
		}
	}
	cand, ok := g.candidates[dst]
	g.mu.Unlock()
	if !ok {
		return nil
	}
	depth := 1
	if d, ok := r.frontier.depthOf(src); ok {
		depth = d + 1
	}
	u, err := url.Parse(cand.URL)
	reason := scope.SkipInvalid
	if err == nil {
		reason = r.scope.Check(u, depth)
	}
	switch {
	case reason == scope.SkipDepth:
		// A shorter path may still reach it: keep it a candidate.
		r.stats.note("depth")
		return nil
	case reason != scope.InScope:
		r.stats.note("scope: " + reason.String())
	case !r.opts.Partition.Contains(dst):
		// Another process's share; it finds the link in the graph.
	default:
		if _, err := r.frontier.add(cand, depth); err != nil {
			return err
		}
	}
	g.mu.Lock()
	delete(g.candidates, dst)
	g.mu.Unlock()
	return nil
}

// referrersOf returns the pages seen linking to id.
func (g *discoveringGraph) referrersOf(id uuid.UUID) []uuid.UUID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]uuid.UUID(nil), g.referrers[id]...)
}

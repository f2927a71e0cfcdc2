package engine

import (
	"net/url"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/scope"
	"github.com/linksrus/linksrus/linkgraph"
)

// discoveringGraph is the crawler.Graph a run hands to the crawler: it
// writes through to the real graph and, once a page's links and edges are
// stored (and so have IDs), queues the followed links that are in scope,
// in the run's partition and not retrieved recently enough. Following
// edges rather than links is what keeps rel=nofollow links, and the links
// of pages marked nofollow, out of the frontier.
//
// Discovery needs the links of a batch from its UpsertLinks call when its
// UpsertEdges call comes, and the crawler stores several batches at once:
// it is done by the view ForBatch returns for each batch (a
// crawler.BatchGraph). Calls on the discoveringGraph itself, such as
// marking pages retrieved, only write through.
type discoveringGraph struct {
	Graph
	run *Run

	mu sync.Mutex
	// referrers keeps a few pages linking to each queued link
	// (Options.Referrers).
	referrers map[uuid.UUID][]uuid.UUID

	// known holds the IDs of links the run has claimed (queued or
	// fetched), leftOut those of links out of its scope: the crawler need
	// not upsert them again to link to them (crawler.KnownLinks), and
	// discovery would pass them by. They are caches of maxKnownLinks
	// each, apart, so that a site's many links elsewhere do not push out
	// the site's own.
	knownMu sync.Mutex
	known   *linkIDs
	leftOut *linkIDs
}

// maxKnownLinks bounds discoveringGraph.known and leftOut (see linkIDs):
// enough for the links pages share (their navigation) and the links found
// again soon after they were first found, without growing with a large
// crawl (at 1<<18 each they were a third of the live heap of a
// million-page crawl).
const maxKnownLinks = 1 << 16

func newDiscoveringGraph(g Graph, run *Run) *discoveringGraph {
	return &discoveringGraph{
		Graph:     g,
		run:       run,
		referrers: make(map[uuid.UUID][]uuid.UUID),
		known:     newLinkIDs(maxKnownLinks),
		leftOut:   newLinkIDs(maxKnownLinks),
	}
}

// knowLink records the ID of a link the run has claimed.
func (g *discoveringGraph) knowLink(url string, id uuid.UUID) {
	g.knownMu.Lock()
	defer g.knownMu.Unlock()
	g.known.put(url, id)
}

// leaveOut records the ID of a link out of the run's scope, and reports
// whether it was recorded already.
func (g *discoveringGraph) leaveOut(url string, id uuid.UUID) (before bool) {
	g.knownMu.Lock()
	defer g.knownMu.Unlock()
	if _, before = g.leftOut.get(url); !before {
		g.leftOut.put(url, id)
	}
	return before
}

// KnownLinkID implements crawler.KnownLinks: a link the run has claimed,
// or found out of its scope, is known by its ID, and as it cannot be
// queued (again), discovery has no use for the rest of what the graph
// stores of it.
func (g *discoveringGraph) KnownLinkID(url string) (uuid.UUID, bool) {
	g.knownMu.Lock()
	defer g.knownMu.Unlock()
	if id, ok := g.known.get(url); ok {
		return id, true
	}
	return g.leftOut.get(url)
}

// ForBatch implements crawler.BatchGraph.
func (g *discoveringGraph) ForBatch() crawler.Graph { return &discoveryBatch{g: g} }

// KnownLinkID implements crawler.KnownLinks.
func (b *discoveryBatch) KnownLinkID(url string) (uuid.UUID, bool) { return b.g.KnownLinkID(url) }

// discoveryBatch is the view of a discoveringGraph that stores one batch
// of pages. It is used by one goroutine at a time.
type discoveryBatch struct {
	g *discoveringGraph
	// candidates holds the not yet retrieved links of the batch, by ID,
	// until their edges are seen.
	candidates map[uuid.UUID]linkgraph.Link
	// via maps a redirected page's ID (its final URL's, which the frontier
	// never queued) to the link the frontier fetched it for, so that its
	// links are one hop deeper than that link.
	via map[uuid.UUID]uuid.UUID
}

// UpsertLinks implements crawler.Graph.
func (b *discoveryBatch) UpsertLinks(links []*linkgraph.Link) error {
	g := b.g
	if err := g.Graph.UpsertLinks(links); err != nil {
		return err
	}
	for _, l := range links {
		if g.run.frontier.isSeen(l.URL) {
			g.knowLink(l.URL, l.ID)
			continue
		}
		if !l.RetrievedAt.Before(g.run.cutoff) {
			continue
		}
		if b.candidates == nil {
			b.candidates = make(map[uuid.UUID]linkgraph.Link)
		}
		// Keep RetrievedAt: the crawler relies on it to tell a page
		// fetched before, whose stale edges must go, from a new one.
		b.candidates[l.ID] = *l
	}
	return nil
}

// UpsertEdges implements crawler.Graph.
func (b *discoveryBatch) UpsertEdges(edges []*linkgraph.Edge) error {
	g := b.g
	// The links are followed before the edges are written: the frontier
	// needs only their ends, and the pages they lead to can be on their
	// way while the edges are stored (a round trip or two to a database
	// server, for every hop of the crawl). A crash before the edges are
	// stored leaves the page due again, to be stored again in full.
	for _, e := range edges {
		if err := b.follow(e.Src, e.Dst); err != nil {
			return err
		}
	}
	if err := g.Graph.UpsertEdges(edges); err != nil {
		return err
	}
	if s := g.run.frontier.shared; s != nil {
		// Before the pages are marked retrieved: a crash must not lose
		// the links of a page it crawled.
		return s.flushEnqueued(g.run.ctx())
	}
	return nil
}

// Redirected implements crawler.RedirectRecorder.
func (b *discoveryBatch) Redirected(from, to uuid.UUID) {
	if b.via == nil {
		b.via = make(map[uuid.UUID]uuid.UUID)
	}
	b.via[to] = from
}

// RefreshEdges implements crawler.EdgeRefresher.
func (b *discoveryBatch) RefreshEdges(fromIDs []uuid.UUID, updatedAt time.Time) error {
	return b.g.Graph.RefreshEdges(fromIDs, updatedAt)
}

// RemoveStaleEdges implements crawler.Graph.
func (b *discoveryBatch) RemoveStaleEdges(from uuid.UUID, updatedBefore time.Time) error {
	return b.g.Graph.RemoveStaleEdges(from, updatedBefore)
}

// follow handles the edge src → dst of a page just crawled.
func (b *discoveryBatch) follow(src, dst uuid.UUID) error {
	g := b.g
	r := g.run
	g.mu.Lock()
	if n := r.opts.Referrers; n > 0 {
		if refs := g.referrers[dst]; len(refs) < n {
			g.referrers[dst] = append(refs, src)
		}
	}
	g.mu.Unlock()
	cand, ok := b.candidates[dst]
	if !ok {
		return nil
	}
	depth := 1
	if d, ok := r.frontier.depthOf(src); ok {
		depth = d + 1
	} else if alias, ok := b.via[src]; ok {
		if d, ok := r.frontier.depthOf(alias); ok {
			depth = d + 1
		}
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
		// Out of scope whatever the path to it (but for a filter, which
		// is given the depth): left out from now on, the link is neither
		// upserted again by the pages that have it nor counted again,
		// even when two batches stored at once both find it.
		if reason == scope.SkipFilter || !g.leaveOut(cand.URL, cand.ID) {
			r.stats.note("scope: " + reason.String())
		}
	case !r.opts.Partition.Contains(dst):
		// Another process's share; it finds the link in the graph.
	default:
		if _, err := r.frontier.add(cand, depth); err != nil {
			return err
		}
		if r.frontier.isSeen(cand.URL) {
			g.knowLink(cand.URL, cand.ID)
		}
	}
	delete(b.candidates, dst)
	return nil
}

// referrersOf returns the pages seen linking to id.
func (g *discoveringGraph) referrersOf(id uuid.UUID) []uuid.UUID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]uuid.UUID(nil), g.referrers[id]...)
}

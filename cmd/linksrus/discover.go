package main

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/scope"
	"github.com/linksrus/linksrus/linkgraph"
)

// maxReferrers bounds how many linking pages the run remembers per link, for
// the broken-link report.
const maxReferrers = 5

// discoveringGraph is the crawler.Graph the crawl command hands to the
// crawler: it writes through to the real graph and, once a page's links and
// edges are stored (and so have IDs), queues the followed links that are in
// scope, in this process's partition and not retrieved recently enough.
// Following edges rather than links is what keeps rel=nofollow links and
// pages marked nofollow out of the frontier.
type discoveringGraph struct {
	crawler.Graph
	run *crawlRun

	mu sync.Mutex
	// candidates holds the links that may need fetching, by ID, until an
	// edge to them is seen.
	candidates map[uuid.UUID]linkgraph.Link
	// referrers keeps a few pages linking to each queued link.
	referrers map[uuid.UUID][]uuid.UUID
}

func newDiscoveringGraph(g crawler.Graph, run *crawlRun) *discoveringGraph {
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
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, l := range links {
		if !l.RetrievedAt.Before(g.run.cutoff) {
			// The crawler marks a page retrieved once it has stored the
			// page's links and edges: if the page is one of this run's,
			// its request slot can go to the next page of its host.
			g.run.frontier.fetched(l.ID)
			continue
		}
		if !g.run.frontier.isSeen(l.ID) {
			// Keep RetrievedAt: the crawler relies on it to tell a page
			// fetched before, whose stale edges must go, from a new one.
			g.candidates[l.ID] = *l
		}
	}
	return nil
}

// UpsertEdges implements crawler.Graph.
func (g *discoveringGraph) UpsertEdges(edges []*linkgraph.Edge) error {
	if err := g.Graph.UpsertEdges(edges); err != nil {
		return err
	}
	for _, e := range edges {
		g.follow(e.Src, e.Dst)
	}
	return nil
}

// follow handles the edge src → dst of a page just crawled.
func (g *discoveringGraph) follow(src, dst uuid.UUID) {
	r := g.run
	g.mu.Lock()
	if refs := g.referrers[dst]; len(refs) < maxReferrers {
		g.referrers[dst] = append(refs, src)
	}
	cand, ok := g.candidates[dst]
	g.mu.Unlock()
	if !ok {
		return
	}
	depth := 1
	if d, ok := r.frontier.depthOf(src); ok {
		depth = d + 1
	}
	u, reason := r.check(cand.URL, depth)
	switch {
	case reason == scope.SkipDepth:
		// A shorter path may still reach it: keep it a candidate.
		r.stats.skip("depth")
		return
	case reason != scope.InScope:
		r.stats.skip("scope: " + reason.String())
	case !r.inPartition(dst):
		// Another process's share; it finds the link in the graph.
	default:
		r.frontier.add(cand, u.Host, depth)
	}
	g.mu.Lock()
	delete(g.candidates, dst)
	g.mu.Unlock()
}

// referrersOf returns the pages seen linking to id.
func (g *discoveringGraph) referrersOf(id uuid.UUID) []uuid.UUID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]uuid.UUID(nil), g.referrers[id]...)
}

// crawlStats are the live counters of a run, read by the progress display
// while the crawl runs.
type crawlStats struct {
	start   time.Time
	pages   atomic.Int64 // crawled
	errors  atomic.Int64 // failed fetches
	skipped atomic.Int64 // skipped by the crawler (robots, content type...)
	bytes   atomic.Int64
	links   atomic.Int64 // links found on crawled pages

	mu      sync.Mutex
	reasons map[string]int64 // every outcome and scope decision, by reason
}

func newCrawlStats() *crawlStats {
	return &crawlStats{start: time.Now(), reasons: make(map[string]int64)}
}

func (s *crawlStats) skip(reason string) {
	s.mu.Lock()
	s.reasons[reason]++
	s.mu.Unlock()
}

func (s *crawlStats) record(o crawler.Outcome) {
	s.bytes.Add(o.Bytes)
	switch o.Reason {
	case crawler.ReasonCrawled:
		s.pages.Add(1)
		s.links.Add(int64(o.Links + o.NoFollowLinks))
	case crawler.ReasonFetchError, crawler.ReasonHTTPStatus, crawler.ReasonCharset,
		crawler.ReasonRedirectLoop, crawler.ReasonTooManyRedirects, crawler.ReasonCanceled:
		// Failures, as opposed to skips by policy or limit: a page that
		// should have been crawled and was not.
		s.errors.Add(1)
	default:
		s.skipped.Add(1)
	}
	s.skip(o.Reason.String())
}

func (s *crawlStats) reasonCounts() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string]int64, len(s.reasons))
	for k, v := range s.reasons {
		m[k] = v
	}
	return m
}

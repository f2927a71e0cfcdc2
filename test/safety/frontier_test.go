package safety

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/linkgraph"
)

// sliceIterator is a linkgraph.LinkIterator over a fixed list.
type sliceIterator struct {
	links []linkgraph.Link
	i     int
}

func (it *sliceIterator) Next() bool {
	if it.i >= len(it.links) {
		return false
	}
	it.i++
	return true
}
func (it *sliceIterator) Link() *linkgraph.Link { l := it.links[it.i-1]; return &l }
func (it *sliceIterator) Error() error          { return nil }
func (it *sliceIterator) Close() error          { return nil }

// recordingGraph writes through to a graph and remembers the targets of the
// edges written, which are the followed links of the pages crawled: the
// frontier of the next level.
type recordingGraph struct {
	crawler.Graph

	mu    sync.Mutex
	urls  map[uuid.UUID]string
	found map[uuid.UUID]bool
}

func (g *recordingGraph) UpsertLinks(links []*linkgraph.Link) error {
	if err := g.Graph.UpsertLinks(links); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, l := range links {
		g.urls[l.ID] = l.URL
	}
	return nil
}

func (g *recordingGraph) UpsertEdges(edges []*linkgraph.Edge) error {
	if err := g.Graph.UpsertEdges(edges); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, e := range edges {
		g.found[e.Dst] = true
	}
	return nil
}

// take returns the links found since the last call.
func (g *recordingGraph) take() []linkgraph.Link {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]linkgraph.Link, 0, len(g.found))
	for id := range g.found {
		out = append(out, linkgraph.Link{ID: id, URL: g.urls[id]})
	}
	clear(g.found)
	return out
}

// levelCrawl is a breadth-first frontier: it crawls the seeds, then the
// links they lead to, level by level, up to maxDepth hops and maxPages
// pages in all, staying on host. Like any frontier facing a link trap, it
// is these two limits that end the crawl.
type levelCrawl struct {
	crawler  *crawler.Crawler
	graph    *recordingGraph
	host     string
	maxDepth int
	maxPages int
	// maxLevel caps the pages of one level, so that one page with very
	// many links cannot spend the whole budget and starve deeper levels.
	maxLevel int

	// Filled in by run.
	levels  []int // pages handed to the crawler at each depth
	left    int   // links found but beyond a limit
	crawled int
}

func (lc *levelCrawl) run(ctx context.Context, t *testing.T, seeds []string) error {
	t.Helper()
	links := make([]*linkgraph.Link, len(seeds))
	for i, s := range seeds {
		links[i] = &linkgraph.Link{URL: s}
	}
	if err := lc.graph.UpsertLinks(links); err != nil {
		return err
	}
	seen := make(map[uuid.UUID]bool)
	var level []linkgraph.Link
	for _, l := range links {
		if !seen[l.ID] {
			seen[l.ID] = true
			level = append(level, *l)
		}
	}
	budget := lc.maxPages
	for depth := 0; len(level) > 0; depth++ {
		lc.levels = append(lc.levels, len(level))
		budget -= len(level)
		n, err := lc.crawler.Crawl(ctx, &sliceIterator{links: level})
		lc.crawled += n
		if err != nil {
			return err
		}
		var next []linkgraph.Link
		for _, l := range lc.graph.take() {
			u, err := url.Parse(l.URL)
			if err != nil || u.Host != lc.host || seen[l.ID] {
				continue
			}
			next = append(next, l)
		}
		// A deterministic order, so that the same pages are cut off every run.
		slices.SortFunc(next, func(a, b linkgraph.Link) int { return strings.Compare(a.URL, b.URL) })
		if depth+1 > lc.maxDepth {
			lc.left += len(next)
			return nil
		}
		if limit := min(budget, lc.maxLevel); len(next) > limit {
			lc.left += len(next) - limit
			next = next[:limit]
		}
		for _, l := range next {
			seen[l.ID] = true
		}
		level = next
	}
	return nil
}

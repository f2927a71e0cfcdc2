package crawler

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/pipeline"
)

// GraphUpdater is the stage that writes crawled pages to the link graph. It
// is both a pipeline.Processor (one page at a time) and a
// pipeline.BatchProcessor: a batch of pages costs the same few graph calls
// as one page, whatever the number of pages and links, which is what makes
// a store that syncs every write to disk keep up with the fetchers.
//
// For a batch it makes, in this order:
//
//  1. one UpsertLinks for every link found on the pages and the pages
//     themselves, to get their IDs (the pages' RetrievedAt unchanged),
//     but the links whose IDs the pages' Frontier knows (KnownLinkID);
//  2. the Frontier's Found with the links each page follows, and one
//     UpsertEdges for an edge from each page to each of them (no-follow
//     links are stored without an edge);
//  3. a RemoveStaleEdges for each page that was retrieved before, deleting
//     its edges that were not refreshed, that is the links the page no
//     longer has. A page never retrieved has no edges of its own to drop:
//     it is known by a zero RetrievedAt both in the payload and as the
//     graph reports it back from step 1, as linkgraph backends do (or, for
//     a page whose own link the frontier knows, in the payload alone: see
//     Frontier.KnownLinkID). The pages found unchanged (Payload.Unchanged)
//     have no links to store: one RefreshEdges (EdgeRefresher) marks all
//     their edges seen instead;
//  4. one UpsertLinks setting the pages' RetrievedAt and validators (ETag,
//     LastModified), unless a RetrievalMarker later in the pipeline does
//     it (see below).
//
// Marking the pages retrieved last means that a crash part-way leaves them
// due for fetching again rather than marked done with links or edges
// missing. Every write is committed when the call returns, so the pages'
// outcomes, reported after, describe stored pages.
//
// RetrievedAt is what tells a crawl which pages are done, so a page must be
// marked only once every store has it. When pages are also indexed, the
// crawler therefore splits step 4 off into a RetrievalMarker that runs
// after the indexer: a crash between the two writes then leaves the page
// due again instead of retrieved and never indexed.
type GraphUpdater struct {
	graph Graph
	// refresher is graph, when it can refresh edges (EdgeRefresher).
	refresher EdgeRefresher
	now       func() time.Time
	// skipMark leaves step 4 to a RetrievalMarker.
	skipMark bool
}

// NewGraphUpdater returns the graph updater stage writing to g.
func NewGraphUpdater(g Graph) *GraphUpdater {
	u := &GraphUpdater{graph: g, now: time.Now}
	u.refresher, _ = refresherOf(g)
	return u
}

// NewGraphUpdaterWithoutMark returns a graph updater that stores pages'
// links and edges but leaves marking the pages retrieved to a
// RetrievalMarker placed after the other stores.
func NewGraphUpdaterWithoutMark(g Graph) *GraphUpdater {
	u := NewGraphUpdater(g)
	u.skipMark = true
	return u
}

// RetrievalMarker is the stage that marks pages retrieved in the graph
// (step 4 of GraphUpdater), for pipelines where other stores must have a
// page before it counts as done. It is both a pipeline.Processor and a
// pipeline.BatchProcessor: a batch is one UpsertLinks.
type RetrievalMarker struct {
	graph Graph
	now   func() time.Time
	// leftover, if set, indexes the pages of a batch that the indexer
	// beside the graph updater left (redirected pages, links without an
	// ID: see leftToMarker) before they are marked, now that the graph
	// has given them their ID.
	leftover *TextIndexer
}

// NewRetrievalMarker returns the stage marking pages retrieved in g.
func NewRetrievalMarker(g Graph) *RetrievalMarker {
	return &RetrievalMarker{graph: g, now: time.Now}
}

// Process implements pipeline.Processor.
func (m *RetrievalMarker) Process(ctx context.Context, pp pipeline.Payload) (pipeline.Payload, error) {
	if err := m.ProcessBatch(ctx, []pipeline.Payload{pp}); err != nil {
		return nil, err
	}
	return pp, nil
}

// ProcessBatch implements pipeline.BatchProcessor.
func (m *RetrievalMarker) ProcessBatch(ctx context.Context, batch []pipeline.Payload) error {
	b := getGraphBatch()
	defer b.release()
	var left []pipeline.Payload
	for _, pp := range batch {
		p, err := asPayload(pp)
		if err != nil {
			return fmt.Errorf("crawler: mark retrieved: %w", err)
		}
		b.pages = append(b.pages, p)
		if m.leftover != nil && leftToMarker(p) {
			left = append(left, p)
		}
	}
	if len(left) > 0 {
		if err := m.leftover.ProcessBatch(ctx, left); err != nil {
			return err
		}
	}
	return markRetrieved(m.graph, m.now, b)
}

// graphBatch holds the links and edges of a batch of pages; pooled so that
// batches reuse the slices instead of allocating them.
type graphBatch struct {
	pages    []*Payload
	first    []int // index in links of each page's own link
	found    []Found
	links    []linkgraph.Link
	linkPtrs []*linkgraph.Link
	edges    []linkgraph.Edge
	edgePtrs []*linkgraph.Edge
}

var graphBatchPool = sync.Pool{New: func() any { return new(graphBatch) }}

func (b *graphBatch) reset() {
	clear(b.pages)
	clear(b.links) // drop the URL strings
	clear(b.linkPtrs)
	clear(b.edgePtrs)
	clear(b.found)
	b.pages, b.first, b.found = b.pages[:0], b.first[:0], b.found[:0]
	b.links, b.linkPtrs = b.links[:0], b.linkPtrs[:0]
	b.edges, b.edgePtrs = b.edges[:0], b.edgePtrs[:0]
}

func getGraphBatch() *graphBatch { return graphBatchPool.Get().(*graphBatch) }

func (b *graphBatch) release() {
	b.reset()
	graphBatchPool.Put(b)
}

// Process implements pipeline.Processor.
func (u *GraphUpdater) Process(ctx context.Context, pp pipeline.Payload) (pipeline.Payload, error) {
	p, err := asPayload(pp)
	if err != nil {
		return nil, fmt.Errorf("crawler: update graph: %w", err)
	}
	b := getGraphBatch()
	defer b.release()
	b.pages = append(b.pages, p)
	if err := u.update(ctx, b); err != nil {
		return nil, err
	}
	return p, nil
}

// ProcessBatch implements pipeline.BatchProcessor: it stores every page of
// batch and forwards them all, or fails as a whole.
func (u *GraphUpdater) ProcessBatch(ctx context.Context, batch []pipeline.Payload) error {
	b := getGraphBatch()
	defer b.release()
	for _, pp := range batch {
		p, err := asPayload(pp)
		if err != nil {
			return fmt.Errorf("crawler: update graph: %w", err)
		}
		b.pages = append(b.pages, p)
	}
	return u.update(ctx, b)
}

// update writes the pages of b (see GraphUpdater).
func (u *GraphUpdater) update(ctx context.Context, b *graphBatch) error {
	if len(b.pages) == 0 {
		return nil
	}
	g := u.graph
	// The pages of a batch come from one crawl, and so one frontier (nil
	// for pages fed without one: then no link is known, and none found).
	fr := b.pages[0].frontier()
	// Each page's own link, then the links it follows, then the others;
	// the slices sized once for the batch (hundreds of pages, each with
	// dozens of links) rather than grown link by link.
	links, edges := 0, 0
	for _, p := range b.pages {
		links += 2 + len(p.Links) + len(p.NoFollowLinks)
		edges += 1 + len(p.Links)
	}
	b.links = slices.Grow(b.links, links)
	b.linkPtrs = slices.Grow(b.linkPtrs, links)
	b.edges = slices.Grow(b.edges, edges)
	b.edgePtrs = slices.Grow(b.edgePtrs, edges)
	for _, p := range b.pages {
		b.first = append(b.first, len(b.links))
		// A redirected page is stored under its final URL; its original
		// URL follows its links, as an alias with one edge to it.
		b.links = append(b.links, linkgraph.Link{URL: p.storedURL()})
		for _, l := range p.Links {
			b.links = append(b.links, linkgraph.Link{URL: l})
		}
		for _, l := range p.NoFollowLinks {
			b.links = append(b.links, linkgraph.Link{URL: l})
		}
		if p.redirected() {
			b.links = append(b.links, linkgraph.Link{URL: p.URL})
		}
	}
	// The links the frontier already knows the ID of are left out, a
	// page's own link too when it is known by the ID the page was fetched
	// for: the payload then carries its stored state (see
	// Frontier.KnownLinkID). A redirect's pages (the final URL and the
	// alias) always go.
	for i, p := range b.pages {
		own := &b.links[b.first[i]]
		if id, ok := knownOwnLink(fr, p); ok {
			own.ID, own.RetrievedAt = id, p.RetrievedAt
		} else {
			b.linkPtrs = append(b.linkPtrs, own)
		}
		found := b.links[b.first[i]+1 : b.first[i]+1+len(p.Links)+len(p.NoFollowLinks)]
		for j := range found {
			if fr != nil {
				if id, ok := fr.KnownLinkID(found[j].URL); ok {
					found[j].ID = id
					continue
				}
			}
			b.linkPtrs = append(b.linkPtrs, &found[j])
		}
		if p.redirected() {
			b.linkPtrs = append(b.linkPtrs, &b.links[b.first[i]+1+len(found)])
		}
	}
	if len(b.linkPtrs) > 0 {
		if err := g.UpsertLinks(b.linkPtrs); err != nil {
			return fmt.Errorf("crawler: update graph: upsert links of %s: %w", b.describe(), err)
		}
	}

	// The edges upserted below are stamped no earlier than this, even in
	// the same microsecond (see linkgraph.Graph, "Time"), so they do not
	// count as stale; those stored before it do.
	staleBefore := u.now()
	for i, p := range b.pages {
		src := b.links[b.first[i]].ID
		p.PageID = src
		for _, dst := range b.links[b.first[i]+1 : b.first[i]+1+len(p.Links)] {
			b.edges = append(b.edges, linkgraph.Edge{Src: src, Dst: dst.ID})
		}
		if p.redirected() {
			alias := b.links[b.first[i]+1+len(p.Links)+len(p.NoFollowLinks)].ID
			p.aliasID = alias
			b.edges = append(b.edges, linkgraph.Edge{Src: alias, Dst: src})
		}
		if fr != nil {
			b.found = append(b.found, Found{Page: p, Links: b.links[b.first[i]+1 : b.first[i]+1+len(p.Links)]})
		}
	}
	// The frontier is told before the edges are written: it needs only
	// their ends, and the pages they lead to can be on their way while
	// the edges are stored (a round trip or two to a database server, for
	// every hop of the crawl). A crash before the edges are stored leaves
	// the page due again, to be stored again in full.
	if len(b.found) > 0 {
		if err := fr.Found(ctx, b.found); err != nil {
			return fmt.Errorf("crawler: update graph: links found on %s: %w", b.describe(), err)
		}
	}
	for i := range b.edges {
		b.edgePtrs = append(b.edgePtrs, &b.edges[i])
	}
	if len(b.edgePtrs) > 0 {
		if err := g.UpsertEdges(b.edgePtrs); err != nil {
			return fmt.Errorf("crawler: update graph: upsert edges of %s: %w", b.describe(), err)
		}
	}
	var unchanged []uuid.UUID
	for i, p := range b.pages {
		if p.Unchanged {
			unchanged = append(unchanged, p.PageID)
			continue
		}
		// The graph fills in the stored RetrievedAt (see
		// linkgraph.Graph.UpsertLink); the frontier's may be missing,
		// unless it knows the page (Frontier.KnownLinkID), which it then
		// vouches for.
		if own := b.links[b.first[i]]; own.RetrievedAt.IsZero() && p.RetrievedAt.IsZero() {
			continue
		}
		src := b.links[b.first[i]].ID
		if err := g.RemoveStaleEdges(src, staleBefore); err != nil {
			return fmt.Errorf("crawler: update graph: remove stale edges of %q: %w", p.URL, err)
		}
		if p.redirected() {
			// The alias keeps only its edge to the page it redirects to.
			alias := b.links[b.first[i]+1+len(p.Links)+len(p.NoFollowLinks)].ID
			if err := g.RemoveStaleEdges(alias, staleBefore); err != nil {
				return fmt.Errorf("crawler: update graph: remove stale edges of %q: %w", p.URL, err)
			}
		}
	}

	if u.refresher != nil && len(unchanged) > 0 {
		if err := u.refresher.RefreshEdges(unchanged, staleBefore); err != nil {
			return fmt.Errorf("crawler: update graph: refresh edges of %d unchanged pages: %w", len(unchanged), err)
		}
	}

	if u.skipMark {
		return nil
	}
	return markRetrieved(g, u.now, b)
}

// knownOwnLink returns the ID of p's own link when its frontier knows it,
// which counts only by the ID p was fetched for, and never for a
// redirected page (stored under another URL).
func knownOwnLink(fr Frontier, p *Payload) (uuid.UUID, bool) {
	if fr == nil || p.LinkID == uuid.Nil || p.redirected() {
		return uuid.Nil, false
	}
	id, ok := fr.KnownLinkID(p.URL)
	return id, ok && id == p.LinkID
}

// markRetrieved sets the RetrievedAt of the pages of b (step 4).
func markRetrieved(g Graph, now func() time.Time, b *graphBatch) error {
	if len(b.pages) == 0 {
		return nil
	}
	// Reuse the slices for the pages' own links (and aliases).
	clear(b.linkPtrs)
	clear(b.links)
	b.linkPtrs, b.links = b.linkPtrs[:0], b.links[:0]
	for _, p := range b.pages {
		retrieved := p.FetchedAt
		if retrieved.IsZero() {
			retrieved = now()
		}
		b.links = append(b.links, linkgraph.Link{URL: p.storedURL(), RetrievedAt: retrieved, ETag: p.ETag, LastModified: p.LastModified})
		if p.redirected() {
			b.links = append(b.links, linkgraph.Link{URL: p.URL, RetrievedAt: retrieved})
		}
	}
	for i := range b.links {
		b.linkPtrs = append(b.linkPtrs, &b.links[i])
	}
	if err := g.UpsertLinks(b.linkPtrs); err != nil {
		return fmt.Errorf("crawler: update graph: mark %s retrieved: %w", b.describe(), err)
	}
	return nil
}

// redirected reports whether the page's body came from another URL than
// the link it was fetched for.
func (p *Payload) redirected() bool { return p.FinalURL != "" && p.FinalURL != p.URL }

// storedURL is the URL the page is stored under: its final URL.
func (p *Payload) storedURL() string {
	if p.redirected() {
		return p.FinalURL
	}
	return p.URL
}

// describe names the pages of b for an error message.
func (b *graphBatch) describe() string {
	if len(b.pages) == 1 {
		return fmt.Sprintf("%q", b.pages[0].URL)
	}
	return fmt.Sprintf("%d pages from %q", len(b.pages), b.pages[0].URL)
}

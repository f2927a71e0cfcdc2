// Package memory is an in-memory linkgraph backend: fast, safe for
// concurrent use, and gone when the process exits. It registers the scheme
// "memory" ("memory://") with linkgraph.Open.
//
// It holds the whole graph of a links-only crawl, where edges outnumber
// pages a hundred to one, so an edge is made as small as it can be: links
// are numbered in the order they are first stored, and each link's
// outgoing edges are one list of 12-byte records (destination number,
// update time in microseconds) sorted by destination, so that an upsert or
// RemoveStaleEdges touches only its page's list. Edge IDs are derived from
// source and destination instead of stored. One RWMutex guards it all;
// Links and Edges copy what matches under the read lock, so an iteration
// is a snapshot that does not hold up writers while it runs.
package memory

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/internal/graphutil"
)

func init() {
	linkgraph.Register("memory", func(_ context.Context, u *url.URL) (linkgraph.Graph, error) {
		if u.Host != "" || (u.Path != "" && u.Path != "/") || u.Opaque != "" || u.RawQuery != "" {
			return nil, fmt.Errorf("memory backend takes no host, path or options, want \"memory://\"")
		}
		return New(), nil
	})
}

// errClosed is returned by every call made after Close.
var errClosed = errors.New("graph is closed")

// link is the stored form of a Link. Links are numbered in the order they
// are first stored; edges refer to them by number.
type link struct {
	id          uuid.UUID
	url         string
	retrievedAt time.Time
	// val holds the link's ETag and LastModified; nil when both are
	// empty, as they are for every link not yet retrieved.
	val *[2]string
}

// validators returns the link's ETag and LastModified.
func (l *link) validators() (etag, lastModified string) {
	if l.val == nil {
		return "", ""
	}
	return l.val[0], l.val[1]
}

func (l *link) setValidators(etag, lastModified string) {
	if etag == "" && lastModified == "" {
		l.val = nil
		return
	}
	l.val = &[2]string{etag, lastModified}
}

func (l *link) public() linkgraph.Link {
	etag, lm := l.validators()
	return linkgraph.Link{ID: l.id, URL: l.url, RetrievedAt: l.retrievedAt, ETag: etag, LastModified: lm}
}

// edge is the stored form of an edge, kept with its source: the number of
// its destination and its update time in microseconds (the graph's
// precision). The time is split into two 32-bit halves so that the record
// is 12 bytes with 4-byte alignment, not 16 with padding; a map of edges
// with their own IDs took about 100. Edge IDs are derived from source and
// destination (edgeID) instead of stored.
type edge struct {
	dst        uint32
	atLo, atHi uint32 // Unix microseconds
}

func newEdge(dst uint32, micros int64) edge {
	return edge{dst: dst, atLo: uint32(micros), atHi: uint32(uint64(micros) >> 32)}
}

// updatedAt is the edge's update time in Unix microseconds.
func (e edge) updatedAt() int64 { return int64(uint64(e.atHi)<<32 | uint64(e.atLo)) }

func (e *edge) setUpdatedAt(micros int64) { *e = newEdge(e.dst, micros) }

// Graph is an in-memory linkgraph.Graph. The zero value is not usable; call
// New.
type Graph struct {
	mu     sync.RWMutex
	closed bool
	links  []link
	byID   map[uuid.UUID]uint32
	byURL  map[string]uint32
	// out[i] are the edges leaving link i, sorted by destination number,
	// so that RemoveStaleEdges and an upsert touch only one page's edges.
	out [][]edge
}

var _ linkgraph.Graph = (*Graph)(nil)

// New returns an empty graph. It is the one backend constructor not of
// the shape Open(ctx, where, opts) (see the linkgraph package
// documentation): there is nothing to locate, wait for or set, and nothing
// that can fail.
func New() *Graph {
	return &Graph{
		byID:  make(map[uuid.UUID]uint32),
		byURL: make(map[string]uint32),
	}
}

// Close drops the graph's contents; later calls fail.
func (g *Graph) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.links, g.byID, g.byURL, g.out = nil, nil, nil, nil
	return nil
}

// edgeID is the ID of the edge src → dst: derived, not stored
// (graphutil.EdgeID, the same in the bolt backend).
func edgeID(src, dst uuid.UUID) uuid.UUID { return graphutil.EdgeID(src, dst) }

// UpsertLink implements linkgraph.Graph.
func (g *Graph) UpsertLink(l *linkgraph.Link) error {
	if err := graphutil.ValidateLink(l); err != nil {
		return fmt.Errorf("memory graph: upsert link: %w", err)
	}
	if err := g.upsertLinks([]*linkgraph.Link{l}); err != nil {
		return fmt.Errorf("memory graph: upsert link: %w", err)
	}
	return nil
}

// UpsertLinks implements linkgraph.Graph.
func (g *Graph) UpsertLinks(links []*linkgraph.Link) error {
	if err := g.upsertLinks(links); err != nil {
		return fmt.Errorf("memory graph: upsert links: %w", err)
	}
	return nil
}

func (g *Graph) upsertLinks(links []*linkgraph.Link) error {
	clock := graphutil.NewClock()
	defer clock.Settle() // after the lock is released
	b, err := graphutil.DedupLinks(links, clock)
	if err != nil {
		return err
	}
	stored := make([]linkgraph.Link, len(b.URLs))
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return errClosed
	}
	for i, u := range b.URLs {
		n, ok := g.byURL[u]
		if !ok {
			n = uint32(len(g.links))
			id := uuid.New()
			g.links = append(g.links, link{id: id, url: u, retrievedAt: b.RetrievedAt[i]})
			g.links[n].setValidators(b.ETag[i], b.LastModified[i])
			g.out = append(g.out, nil)
			g.byURL[u] = n
			g.byID[id] = n
		} else if l := &g.links[n]; b.RetrievedAt[i].After(l.retrievedAt) {
			l.retrievedAt = b.RetrievedAt[i]
			l.setValidators(b.ETag[i], b.LastModified[i])
		}
		stored[i] = g.links[n].public()
	}
	g.mu.Unlock()
	for i, l := range links {
		s := &stored[b.Index[i]]
		l.ID, l.RetrievedAt, l.ETag, l.LastModified = s.ID, s.RetrievedAt, s.ETag, s.LastModified
	}
	return nil
}

// FindLink implements linkgraph.Graph.
func (g *Graph) FindLink(id uuid.UUID) (*linkgraph.Link, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.closed {
		return nil, fmt.Errorf("memory graph: find link: %w", errClosed)
	}
	n, ok := g.byID[id]
	if !ok {
		return nil, fmt.Errorf("memory graph: find link %s: %w", id, linkgraph.ErrNotFound)
	}
	l := g.links[n].public()
	return &l, nil
}

// Links implements linkgraph.Graph. It copies the matching links when
// called, so the iteration sees the graph as it was then.
func (g *Graph) Links(fromID, toID uuid.UUID, retrievedBefore time.Time) (linkgraph.LinkIterator, error) {
	before := graphutil.Timestamp(retrievedBefore)
	g.mu.RLock()
	if g.closed {
		g.mu.RUnlock()
		return nil, fmt.Errorf("memory graph: links: %w", errClosed)
	}
	var out []linkgraph.Link
	if !graphutil.EmptyRange(fromID, toID) {
		for i := range g.links {
			if l := &g.links[i]; graphutil.InRange(l.id, fromID, toID) && l.retrievedAt.Before(before) {
				out = append(out, l.public())
			}
		}
	}
	g.mu.RUnlock()
	slices.SortFunc(out, func(a, b linkgraph.Link) int { return linkgraph.CompareIDs(a.ID, b.ID) })
	return &linkIterator{links: out, pos: -1}, nil
}

// UpsertEdge implements linkgraph.Graph.
func (g *Graph) UpsertEdge(e *linkgraph.Edge) error {
	if err := g.upsertEdges([]*linkgraph.Edge{e}); err != nil {
		return fmt.Errorf("memory graph: upsert edge: %w", err)
	}
	return nil
}

// UpsertEdges implements linkgraph.Graph.
func (g *Graph) UpsertEdges(edges []*linkgraph.Edge) error {
	if err := g.upsertEdges(edges); err != nil {
		return fmt.Errorf("memory graph: upsert edges: %w", err)
	}
	return nil
}

func (g *Graph) upsertEdges(edges []*linkgraph.Edge) error {
	clock := graphutil.NewClock()
	defer clock.Settle() // after the lock is released
	b, err := graphutil.DedupEdges(edges, clock)
	if err != nil {
		return err
	}
	at := make([]time.Time, len(b.Keys))
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return errClosed
	}
	// Check every edge before changing any, so that a failing batch leaves
	// the graph as it was.
	srcs := make([]uint32, len(b.Keys))
	dsts := make([]uint32, len(b.Keys))
	for i, k := range b.Keys {
		s, ok1 := g.byID[k.Src]
		d, ok2 := g.byID[k.Dst]
		if !ok1 || !ok2 {
			g.mu.Unlock()
			return fmt.Errorf("edge %s -> %s: %w", k.Src, k.Dst, linkgraph.ErrUnknownEdgeLinks)
		}
		srcs[i], dsts[i] = s, d
	}
	// Existing edges are refreshed in place (binary search in the sorted
	// list of their source). New ones are counted per source first (the
	// batch has each pair once, so the count is exact), so that each list
	// grows once per batch, and to its exact size when it
	// was empty (a page's first crawl, the usual case): appending one at a
	// time left a third of the records unused on average. Each list that
	// grew is then sorted once, so a page with many edges costs n log n.
	isNew := make([]bool, len(b.Keys))
	added := make(map[uint32]int)
	for i := range b.Keys {
		list := g.out[srcs[i]]
		micros := b.UpdatedAt[i].UnixMicro()
		j, found := slices.BinarySearchFunc(list, dsts[i], func(e edge, d uint32) int { return cmpU32(e.dst, d) })
		if !found {
			isNew[i] = true
			added[srcs[i]]++
			at[i] = time.UnixMicro(micros).UTC()
			continue
		}
		list[j].setUpdatedAt(max(list[j].updatedAt(), micros))
		at[i] = time.UnixMicro(list[j].updatedAt()).UTC()
	}
	for s, n := range added {
		if list := g.out[s]; len(list) == 0 {
			g.out[s] = make([]edge, 0, n)
		} else {
			// Amortised growth: a source refreshed with a few new edges
			// at a time must not be copied whole each time.
			g.out[s] = slices.Grow(list, n)
		}
	}
	for i := range b.Keys {
		if isNew[i] {
			g.out[srcs[i]] = append(g.out[srcs[i]], newEdge(dsts[i], b.UpdatedAt[i].UnixMicro()))
		}
	}
	for s := range added {
		slices.SortFunc(g.out[s], func(a, b edge) int { return cmpU32(a.dst, b.dst) })
	}
	g.mu.Unlock()
	for i, e := range edges {
		k := b.Keys[b.Index[i]]
		e.ID, e.UpdatedAt = edgeID(k.Src, k.Dst), at[b.Index[i]]
	}
	return nil
}

func cmpU32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Edges implements linkgraph.Graph. Like Links it works on a copy taken when
// called.
func (g *Graph) Edges(fromID, toID uuid.UUID, updatedBefore time.Time) (linkgraph.EdgeIterator, error) {
	before := graphutil.Timestamp(updatedBefore).UnixMicro()
	g.mu.RLock()
	if g.closed {
		g.mu.RUnlock()
		return nil, fmt.Errorf("memory graph: edges: %w", errClosed)
	}
	var out []linkgraph.Edge
	if !graphutil.EmptyRange(fromID, toID) {
		for s, list := range g.out {
			src := g.links[s].id
			if len(list) == 0 || !graphutil.InRange(src, fromID, toID) {
				continue
			}
			for _, e := range list {
				if at := e.updatedAt(); at < before {
					dst := g.links[e.dst].id
					out = append(out, linkgraph.Edge{ID: edgeID(src, dst), Src: src, Dst: dst, UpdatedAt: time.UnixMicro(at).UTC()})
				}
			}
		}
	}
	g.mu.RUnlock()
	slices.SortFunc(out, func(a, b linkgraph.Edge) int {
		if c := linkgraph.CompareIDs(a.Src, b.Src); c != 0 {
			return c
		}
		return linkgraph.CompareIDs(a.Dst, b.Dst)
	})
	return &edgeIterator{edges: out, pos: -1}, nil
}

// RefreshEdges implements linkgraph.Graph.
func (g *Graph) RefreshEdges(fromIDs []uuid.UUID, updatedAt time.Time) error {
	clock := graphutil.NewClock()
	defer clock.Settle() // deferred first, so run after the unlock
	at := clock.StampOrNow(updatedAt).UnixMicro()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return fmt.Errorf("memory graph: refresh edges: %w", errClosed)
	}
	for _, id := range fromIDs {
		s, ok := g.byID[id]
		if !ok {
			continue
		}
		for i := range g.out[s] {
			if e := &g.out[s][i]; e.updatedAt() < at {
				e.setUpdatedAt(at)
			}
		}
	}
	return nil
}

// RemoveStaleEdges implements linkgraph.Graph.
func (g *Graph) RemoveStaleEdges(fromID uuid.UUID, updatedBefore time.Time) error {
	before := graphutil.Timestamp(updatedBefore).UnixMicro()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return fmt.Errorf("memory graph: remove stale edges: %w", errClosed)
	}
	s, ok := g.byID[fromID]
	if !ok {
		return nil
	}
	list := slices.DeleteFunc(g.out[s], func(e edge) bool { return e.updatedAt() < before })
	switch {
	case len(list) == 0:
		list = nil // give the memory back
	case len(list) < cap(list)/2:
		// A page that lost most of its links gives back the room; halving
		// first keeps a page that shrinks a little at a time from being
		// copied on every crawl.
		list = slices.Clone(list)
	}
	g.out[s] = list
	return nil
}

// Package memory is an in-memory linkgraph backend: fast, safe for
// concurrent use, and gone when the process exits. It registers the scheme
// "memory" ("memory://") with linkgraph.Open.
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

// link is the stored form of a Link; the URL lives in the map key of
// Graph.byURL as well, so only what changes is kept here.
type link struct {
	url         string
	retrievedAt time.Time
}

type edge struct {
	id        uuid.UUID
	updatedAt time.Time
}

// Graph is an in-memory linkgraph.Graph. The zero value is not usable; call
// New.
type Graph struct {
	mu     sync.RWMutex
	closed bool
	links  map[uuid.UUID]*link
	byURL  map[string]uuid.UUID
	// edges is indexed by source so that RemoveStaleEdges touches only the
	// edges of one page.
	edges map[uuid.UUID]map[uuid.UUID]*edge
}

var _ linkgraph.Graph = (*Graph)(nil)

// New returns an empty graph.
func New() *Graph {
	return &Graph{
		links: make(map[uuid.UUID]*link),
		byURL: make(map[string]uuid.UUID),
		edges: make(map[uuid.UUID]map[uuid.UUID]*edge),
	}
}

// Close drops the graph's contents; later calls fail.
func (g *Graph) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.links, g.byURL, g.edges = nil, nil, nil
	return nil
}

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
	b, err := graphutil.DedupLinks(links)
	if err != nil {
		return err
	}
	ids := make([]uuid.UUID, len(b.URLs))
	at := make([]time.Time, len(b.URLs))
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return errClosed
	}
	for i, u := range b.URLs {
		id, ok := g.byURL[u]
		if !ok {
			id = uuid.New()
			g.byURL[u] = id
			g.links[id] = &link{url: u, retrievedAt: b.RetrievedAt[i]}
		}
		stored := g.links[id]
		stored.retrievedAt = graphutil.Later(stored.retrievedAt, b.RetrievedAt[i])
		ids[i], at[i] = id, stored.retrievedAt
	}
	g.mu.Unlock()
	for i, l := range links {
		l.ID, l.RetrievedAt = ids[b.Index[i]], at[b.Index[i]]
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
	l, ok := g.links[id]
	if !ok {
		return nil, fmt.Errorf("memory graph: find link %s: %w", id, linkgraph.ErrNotFound)
	}
	return &linkgraph.Link{ID: id, URL: l.url, RetrievedAt: l.retrievedAt}, nil
}

// Links implements linkgraph.Graph. It copies the matching links when
// called, so the iteration sees the graph as it was then.
func (g *Graph) Links(fromID, toID uuid.UUID, retrievedBefore time.Time) (linkgraph.LinkIterator, error) {
	before := graphutil.Bound(retrievedBefore)
	g.mu.RLock()
	if g.closed {
		g.mu.RUnlock()
		return nil, fmt.Errorf("memory graph: links: %w", errClosed)
	}
	var out []linkgraph.Link
	if !graphutil.EmptyRange(fromID, toID) {
		for id, l := range g.links {
			if graphutil.InRange(id, fromID, toID) && l.retrievedAt.Before(before) {
				out = append(out, linkgraph.Link{ID: id, URL: l.url, RetrievedAt: l.retrievedAt})
			}
		}
	}
	g.mu.RUnlock()
	slices.SortFunc(out, func(a, b linkgraph.Link) int { return graphutil.Compare(a.ID, b.ID) })
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
	b, err := graphutil.DedupEdges(edges, time.Now())
	if err != nil {
		return err
	}
	ids := make([]uuid.UUID, len(b.Keys))
	at := make([]time.Time, len(b.Keys))
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return errClosed
	}
	// Check every edge before changing any, so that a failing batch leaves
	// the graph as it was.
	for _, k := range b.Keys {
		if g.links[k.Src] == nil || g.links[k.Dst] == nil {
			g.mu.Unlock()
			return fmt.Errorf("edge %s -> %s: %w", k.Src, k.Dst, linkgraph.ErrUnknownEdgeLinks)
		}
	}
	for i, k := range b.Keys {
		out := g.edges[k.Src]
		if out == nil {
			out = make(map[uuid.UUID]*edge)
			g.edges[k.Src] = out
		}
		e := out[k.Dst]
		if e == nil {
			e = &edge{id: uuid.New(), updatedAt: b.UpdatedAt[i]}
			out[k.Dst] = e
		}
		e.updatedAt = graphutil.Later(e.updatedAt, b.UpdatedAt[i])
		ids[i], at[i] = e.id, e.updatedAt
	}
	g.mu.Unlock()
	for i, e := range edges {
		e.ID, e.UpdatedAt = ids[b.Index[i]], at[b.Index[i]]
	}
	return nil
}

// Edges implements linkgraph.Graph. Like Links it works on a copy taken when
// called.
func (g *Graph) Edges(fromID, toID uuid.UUID, updatedBefore time.Time) (linkgraph.EdgeIterator, error) {
	before := graphutil.Bound(updatedBefore)
	g.mu.RLock()
	if g.closed {
		g.mu.RUnlock()
		return nil, fmt.Errorf("memory graph: edges: %w", errClosed)
	}
	var out []linkgraph.Edge
	if !graphutil.EmptyRange(fromID, toID) {
		for src, dsts := range g.edges {
			if !graphutil.InRange(src, fromID, toID) {
				continue
			}
			for dst, e := range dsts {
				if e.updatedAt.Before(before) {
					out = append(out, linkgraph.Edge{ID: e.id, Src: src, Dst: dst, UpdatedAt: e.updatedAt})
				}
			}
		}
	}
	g.mu.RUnlock()
	slices.SortFunc(out, func(a, b linkgraph.Edge) int {
		if c := graphutil.Compare(a.Src, b.Src); c != 0 {
			return c
		}
		return graphutil.Compare(a.Dst, b.Dst)
	})
	return &edgeIterator{edges: out, pos: -1}, nil
}

// RemoveStaleEdges implements linkgraph.Graph.
func (g *Graph) RemoveStaleEdges(fromID uuid.UUID, updatedBefore time.Time) error {
	before := graphutil.Bound(updatedBefore)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return fmt.Errorf("memory graph: remove stale edges: %w", errClosed)
	}
	out := g.edges[fromID]
	for dst, e := range out {
		if e.updatedAt.Before(before) {
			delete(out, dst)
		}
	}
	if len(out) == 0 {
		delete(g.edges, fromID)
	}
	return nil
}

package bolt

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/internal/graphutil"
	bbolt "go.etcd.io/bbolt"
)

// UpsertEdge implements linkgraph.Graph.
func (g *Graph) UpsertEdge(e *linkgraph.Edge) error {
	if err := g.upsertEdges([]*linkgraph.Edge{e}); err != nil {
		return fmt.Errorf("bolt graph: upsert edge: %w", err)
	}
	return nil
}

// UpsertEdges implements linkgraph.Graph.
func (g *Graph) UpsertEdges(edges []*linkgraph.Edge) error {
	if err := g.upsertEdges(edges); err != nil {
		return fmt.Errorf("bolt graph: upsert edges: %w", err)
	}
	return nil
}

func (g *Graph) upsertEdges(edges []*linkgraph.Edge) error {
	b, err := graphutil.DedupEdges(edges, time.Now())
	if err != nil {
		return err
	}
	if len(b.Keys) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(b.Keys))
	at := make([]time.Time, len(b.Keys))
	// Write in key order, for the reason given in upsertLinks.
	order := make([]int, len(b.Keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		if c := bytes.Compare(b.Keys[x].Src[:], b.Keys[y].Src[:]); c != 0 {
			return c
		}
		return bytes.Compare(b.Keys[x].Dst[:], b.Keys[y].Dst[:])
	})
	err = g.db.update(func(tx *bbolt.Tx) error {
		linksB, edgesB := tx.Bucket(bucketLinks), tx.Bucket(bucketEdges)
		for _, i := range order {
			k := b.Keys[i]
			// Returning an error rolls back the edges already written.
			if linksB.Get(k.Src[:]) == nil || linksB.Get(k.Dst[:]) == nil {
				return fmt.Errorf("edge %s -> %s: %w", k.Src, k.Dst, linkgraph.ErrUnknownEdgeLinks)
			}
			key := edgeKey(k.Src, k.Dst)
			id, updated := uuid.New(), b.UpdatedAt[i]
			if v := edgesB.Get(key); v != nil {
				stored, err := decodeEdge(key, v)
				if err != nil {
					return err
				}
				id, updated = stored.ID, graphutil.Later(stored.UpdatedAt, updated)
				if updated.Equal(stored.UpdatedAt) {
					ids[i], at[i] = id, updated
					continue
				}
			}
			if err := edgesB.Put(key, encodeEdge(id, updated)); err != nil {
				return fmt.Errorf("write edge %s -> %s: %w", k.Src, k.Dst, err)
			}
			ids[i], at[i] = id, updated
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, e := range edges {
		e.ID, e.UpdatedAt = ids[b.Index[i]], at[b.Index[i]]
	}
	return nil
}

// Edges implements linkgraph.Graph.
func (g *Graph) Edges(fromID, toID uuid.UUID, updatedBefore time.Time) (linkgraph.EdgeIterator, error) {
	if err := g.db.view(func(*bbolt.Tx) error { return nil }); err != nil {
		return nil, fmt.Errorf("bolt graph: edges: %w", err)
	}
	before := graphutil.Bound(updatedBefore)
	it := &scan[linkgraph.Edge]{
		db: g.db, bucket: bucketEdges, from: fromID, to: toID, op: "edges",
		decode: func(k, v []byte) (*linkgraph.Edge, bool, error) {
			e, err := decodeEdge(k, v)
			if err != nil {
				return nil, false, err
			}
			return e, e.UpdatedAt.Before(before), nil
		},
	}
	return graphutil.EdgeIterator{Pager: it.pager()}, nil
}

// RemoveStaleEdges implements linkgraph.Graph.
func (g *Graph) RemoveStaleEdges(fromID uuid.UUID, updatedBefore time.Time) error {
	before := graphutil.Bound(updatedBefore)
	err := g.db.update(func(tx *bbolt.Tx) error {
		edgesB := tx.Bucket(bucketEdges)
		// Deleting while a cursor walks can skip entries, so collect first.
		var stale [][]byte
		c := edgesB.Cursor()
		for k, v := c.Seek(fromID[:]); k != nil && bytes.HasPrefix(k, fromID[:]); k, v = c.Next() {
			e, err := decodeEdge(k, v)
			if err != nil {
				return err
			}
			if e.UpdatedAt.Before(before) {
				stale = append(stale, bytes.Clone(k))
			}
		}
		for _, k := range stale {
			if err := edgesB.Delete(k); err != nil {
				return fmt.Errorf("delete edge: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("bolt graph: remove stale edges from %s: %w", fromID, err)
	}
	return nil
}

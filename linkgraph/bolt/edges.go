package bolt

import (
	"encoding/binary"
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
	clock := graphutil.NewClock()
	defer clock.Settle()
	b, err := graphutil.DedupEdges(edges, clock)
	if err != nil {
		return err
	}
	if len(b.Keys) == 0 {
		return nil
	}
	// Grouped by source and sorted by destination within it, so each
	// source's record is read and written once, and records are written
	// in key order, for the reason given in upsertLinks.
	order := make([]int, len(b.Keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		if c := linkgraph.CompareIDs(b.Keys[x].Src, b.Keys[y].Src); c != 0 {
			return c
		}
		return linkgraph.CompareIDs(b.Keys[x].Dst, b.Keys[y].Dst)
	})
	stored := make([]int64, len(b.Keys)) // in the order of order
	err = g.db.update(func(tx *bbolt.Tx) error {
		out := tx.Bucket(bucketOut)
		w := &sourceWriter{links: newSeeker(tx.Bucket(bucketLinks)), out: out, outs: newSeeker(out)}
		for start := 0; start < len(order); {
			src := b.Keys[order[start]].Src
			end := start + 1
			for end < len(order) && b.Keys[order[end]].Src == src {
				end++
			}
			// Returning an error rolls back the records already written.
			if err := w.upsert(b, src, order[start:end], stored[start:end]); err != nil {
				return err
			}
			start = end
		}
		return nil
	})
	if err != nil {
		return err
	}
	at := make([]time.Time, len(b.Keys))
	for j, i := range order {
		at[i] = time.UnixMicro(stored[j]).UTC()
	}
	for i, e := range edges {
		j := b.Index[i]
		e.ID, e.UpdatedAt = edgeID(b.Keys[j].Src, b.Keys[j].Dst), at[j]
	}
	return nil
}

// sourceWriter merges a batch's edges into their sources' records.
type sourceWriter struct {
	links seeker        // the links, to check that edges' ends exist
	out   *bbolt.Bucket // the records written
	outs  seeker        // and read
	ups   []edgeUpdate  // reused for each source
}

// upsert merges the edges b.Keys[i] for i in idx, all leaving src and
// sorted by destination, into src's record, and fills stored with their
// times after the merge.
func (w *sourceWriter) upsert(b *graphutil.EdgeBatch, src uuid.UUID, idx []int, stored []int64) error {
	if w.links.get(src[:]) == nil {
		k := b.Keys[idx[0]]
		return fmt.Errorf("edge %s -> %s: %w", k.Src, k.Dst, linkgraph.ErrUnknownEdgeLinks)
	}
	w.ups = w.ups[:0]
	for _, i := range idx {
		w.ups = append(w.ups, edgeUpdate{dst: b.Keys[i].Dst, micros: b.UpdatedAt[i].UnixMicro()})
	}
	var rec edgeRecord
	if v := w.outs.get(src[:]); v != nil {
		var err error
		if rec, err = checkEdgeRecord(src[:], v); err != nil {
			return err
		}
	}
	// Only a destination the record lacks needs looking up: the others
	// were checked when they were added, and links are never deleted. A
	// recrawled page mostly links where it did before.
	merged, changed, err := mergeEdges(rec, w.ups, stored, func(dst uuid.UUID) error {
		if w.links.get(dst[:]) == nil {
			return fmt.Errorf("edge %s -> %s: %w", src, dst, linkgraph.ErrUnknownEdgeLinks)
		}
		return nil
	})
	if err != nil || !changed {
		return err
	}
	if err := w.out.Put(src[:], merged); err != nil {
		return fmt.Errorf("write edges of %s: %w", src, err)
	}
	return nil
}

// Edges implements linkgraph.Graph.
func (g *Graph) Edges(fromID, toID uuid.UUID, updatedBefore time.Time) (linkgraph.EdgeIterator, error) {
	if err := g.db.view(func(*bbolt.Tx) error { return nil }); err != nil {
		return nil, fmt.Errorf("bolt graph: edges: %w", err)
	}
	s := &edgeScan{db: g.db, from: fromID, to: toID, before: graphutil.Timestamp(updatedBefore).UnixMicro()}
	if graphutil.EmptyRange(fromID, toID) {
		return graphutil.EdgeIterator{Pager: graphutil.NewPager[linkgraph.Edge](nil)}, nil
	}
	return graphutil.EdgeIterator{Pager: graphutil.NewPager(s.fetch)}, nil
}

// EdgePairs calls fn with the ends of every edge updated before
// updatedBefore, source by source, in one read transaction, and stops at
// fn's first error. It is the bulk read of a job that wants the graph's
// shape and nothing more, such as ranking it (package pagerank reads a
// graph that has it this way): Edges builds a linkgraph.Edge for every
// edge, with its derived ID, a page at a time, which was most of the time
// a ranking of the rust documentation's 736,637 edges took.
func (g *Graph) EdgePairs(updatedBefore time.Time, fn func(src, dst uuid.UUID) error) error {
	before := graphutil.Timestamp(updatedBefore).UnixMicro()
	err := g.db.view(func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketOut).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			rec, err := checkEdgeRecordShape(k, v)
			if err != nil {
				return err
			}
			src := uuid.UUID(k)
			for i := range rec.len() {
				if i > 0 {
					if err := rec.checkOrder(k, i); err != nil {
						return err
					}
				}
				if rec.micros(i) < before {
					if err := fn(src, uuid.UUID(rec.dst(i))); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("bolt graph: edge pairs: %w", err)
	}
	return nil
}

// RemoveStaleEdges implements linkgraph.Graph.
func (g *Graph) RemoveStaleEdges(fromID uuid.UUID, updatedBefore time.Time) error {
	before := graphutil.Timestamp(updatedBefore).UnixMicro()
	// A crawler calls this for every page it stores, and most pages have
	// no stale edge; a write transaction costs an fsync even when it
	// changes nothing, so look first. What the read finds is a valid
	// answer as of its snapshot.
	stale := false
	err := g.db.view(func(tx *bbolt.Tx) error {
		rec, err := readEdgeRecord(tx, fromID)
		stale = err == nil && rec.hasStale(before)
		return err
	})
	if err == nil && stale {
		err = g.db.update(func(tx *bbolt.Tx) error { return removeStale(tx, fromID, before) })
	}
	if err != nil {
		return fmt.Errorf("bolt graph: remove stale edges from %s: %w", fromID, err)
	}
	return nil
}

// RefreshEdges implements linkgraph.Graph.
func (g *Graph) RefreshEdges(fromIDs []uuid.UUID, updatedAt time.Time) error {
	clock := graphutil.NewClock()
	defer clock.Settle()
	at := clock.StampOrNow(updatedAt).UnixMicro()
	// Sorted, so that the records are rewritten in key order (see
	// upsertLinks on bbolt and random-order writes).
	ids := slices.Clone(fromIDs)
	slices.SortFunc(ids, linkgraph.CompareIDs)
	ids = slices.Compact(ids)
	err := g.db.update(func(tx *bbolt.Tx) error {
		out := tx.Bucket(bucketOut)
		for _, src := range ids {
			rec, err := readEdgeRecord(tx, src)
			if err != nil {
				return err
			}
			if rec == nil {
				continue
			}
			var fresh edgeRecord // allocated on the first entry to change
			for i := range rec.len() {
				if rec.micros(i) >= at {
					continue
				}
				if fresh == nil {
					fresh = slices.Clone(rec)
				}
				binary.BigEndian.PutUint64(fresh[i*edgeEntrySize+16:], uint64(at))
			}
			if fresh != nil {
				if err := out.Put(src[:], fresh); err != nil {
					return fmt.Errorf("write edges of %s: %w", src, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("bolt graph: refresh edges: %w", err)
	}
	return nil
}

// removeStale rewrites src's record without the entries updated before
// the bound, or deletes it if none is left.
func removeStale(tx *bbolt.Tx, src uuid.UUID, before int64) error {
	rec, err := readEdgeRecord(tx, src)
	if err != nil || !rec.hasStale(before) {
		return err
	}
	out := tx.Bucket(bucketOut)
	if kept := rec.withoutStale(before); len(kept) > 0 {
		err = out.Put(src[:], kept)
	} else {
		err = out.Delete(src[:])
	}
	if err != nil {
		return fmt.Errorf("write edges: %w", err)
	}
	return nil
}

// readEdgeRecord returns src's checked record, nil if it has none.
func readEdgeRecord(tx *bbolt.Tx, src uuid.UUID) (edgeRecord, error) {
	v := tx.Bucket(bucketOut).Get(src[:])
	if v == nil {
		return nil, nil
	}
	return checkEdgeRecord(src[:], v)
}

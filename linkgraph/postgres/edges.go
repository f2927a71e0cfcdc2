package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/internal/graphutil"
)

// The edge upsert merges a batch into its sources' edge lists (migration
// 0005: one row per source, arrays in step sorted by destination), unless
// an edge names an unknown link: then it writes nothing and returns one
// row of NULLs. The check counts the batch's distinct ends that the
// caller does not know are stored (knownLinks) in the links table's
// primary key (see migration 0004 for why this replaced foreign keys). An
// edge already listed keeps its ID and the later of its two times. Only
// the lists that came out otherwise than the batch put them (edges listed
// before, an older ID, a later time) are returned: a crawl's are nearly
// all new, and the caller's edges keep what they were sent with.
//
// The batch comes sorted by source then destination, its columns flat,
// with each source's first and last position; a source's lists are slices
// of them (the "grouped" CTE: less than half the time of grouping the
// edges by source with array_agg, a crawl's batch of 1,235 edges 0.26 ms
// against 0.55-0.74 ms, EXPLAIN ANALYZE). $1 the sources, $2 and $3 the
// first and last position of each one's edges in $4 (IDs), $5
// (destinations) and $6 (times).
const upsertEdgesSQL = `
WITH unknown AS (
	SELECT $8::INT - count(*) AS n FROM links WHERE id = ANY($7::UUID[])
), grouped AS (
	SELECT s.src, ($5::UUID[])[s.lo:s.hi] AS dsts, ($4::UUID[])[s.lo:s.hi] AS ids,
		($6::TIMESTAMPTZ[])[s.lo:s.hi] AS updated
	FROM unnest($1::UUID[], $2::INT[], $3::INT[]) AS s (src, lo, hi), unknown WHERE unknown.n = 0
)` + upsertEdgesMerge

// upsertEdgesMerge is the part of the edge upserts after "grouped": the
// lists, one per source, with the CTE "unknown" telling whether to write.
const upsertEdgesMerge = `, upserted AS (
	INSERT INTO edge_lists AS l (src, dsts, ids, updated)
	SELECT src, dsts, ids, updated FROM grouped ORDER BY src
	ON CONFLICT (src) DO UPDATE SET (dsts, ids, updated) = (
		SELECT array_agg(m.dst ORDER BY m.dst), array_agg(m.id ORDER BY m.dst), array_agg(m.at ORDER BY m.dst)
		FROM (
			SELECT COALESCE(o.dst, n.dst) AS dst, COALESCE(o.id, n.id) AS id,
				GREATEST(COALESCE(o.at, n.at), COALESCE(n.at, o.at)) AS at
			FROM unnest(l.dsts, l.ids, l.updated) AS o (dst, id, at)
			FULL JOIN unnest(excluded.dsts, excluded.ids, excluded.updated) AS n (dst, id, at) ON o.dst = n.dst
		) m
	)
	RETURNING src, dsts, ids, updated
)
SELECT u.src, u.dsts, u.ids, u.updated FROM upserted u JOIN grouped g ON g.src = u.src
WHERE u.dsts <> g.dsts OR u.ids <> g.ids OR u.updated <> g.updated
UNION ALL
SELECT NULL, NULL, NULL, NULL FROM unknown WHERE n > 0`

// UpsertEdge implements linkgraph.Graph.
func (g *Graph) UpsertEdge(e *linkgraph.Edge) error {
	if err := g.upsertEdges([]*linkgraph.Edge{e}); err != nil {
		return fmt.Errorf("postgres graph: upsert edge: %w", err)
	}
	return nil
}

// UpsertEdges implements linkgraph.Graph.
func (g *Graph) UpsertEdges(edges []*linkgraph.Edge) error {
	if err := g.upsertEdges(edges); err != nil {
		return fmt.Errorf("postgres graph: upsert edges: %w", err)
	}
	return nil
}

func (g *Graph) upsertEdges(edges []*linkgraph.Edge) error {
	// The graph's clock is this process's, not the server's (see
	// linkgraph.Graph, "Time"): the server's now() is its transaction's
	// start, and PostgreSQL's clock reading cuts the microsecond off, so
	// even on the same machine it can come before a time the caller read
	// ahead of the call.
	clock := graphutil.NewClock()
	defer clock.Settle()
	b, err := graphutil.DedupEdges(edges, clock)
	if err != nil {
		return err
	}
	if len(b.Keys) == 0 {
		return nil
	}
	if err := g.check(); err != nil {
		return err
	}
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
	n := len(order)
	// Plain [16]byte rather than uuid.UUID: pgx encodes the latter through
	// its driver.Valuer, a string per element, which cost a fifth of a
	// crawl's CPU (and see uuidArray). An edge's ID is derived from its
	// ends, as in the other backends (a row stored earlier keeps the ID it
	// has).
	derived := make([]uuid.UUID, n) // by key
	ids, srcs, dsts, ats := make(uuidArray, n), make(uuidArray, n), make(uuidArray, n), make(timeArray, n)
	for i, j := range order {
		k := b.Keys[j]
		derived[j] = graphutil.EdgeID(k.Src, k.Dst)
		ids[i], srcs[i], dsts[i], ats[i] = derived[j], k.Src, k.Dst, b.UpdatedAt[j]
	}
	// Only the ends this graph has not seen stored are looked up (see
	// knownLinks): a crawl's edges join links it has just upserted.
	toCheck := g.known.unknown(srcs, dsts)
	g.endsChecked.Add(int64(len(toCheck)))

	// A run of equal sources in srcs is one source's edges.
	var sources uuidArray
	var first, last []int32
	for i, src := range srcs {
		if i == 0 || src != srcs[i-1] {
			sources, first, last = append(sources, src), append(first, int32(i+1)), append(last, 0)
		}
		last[len(last)-1] = int32(i + 1)
	}
	query, args := upsertEdgesSQL, []any{sources, first, last, ids, dsts, ats, toCheck, len(toCheck)}

	// What each edge of the batch is stored as: what it was sent as, but
	// for the lists returned.
	type stored struct {
		id uuid.UUID
		at time.Time
	}
	var (
		byKey   map[graphutil.EdgeKey]stored
		unknown bool
	)
	err = retry(g.ctx, func(ctx context.Context) error {
		rows, err := g.pool.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		byKey, unknown = nil, false
		var (
			src          *[16]byte
			dsts, idList [][16]byte
			ats          []time.Time
		)
		_, err = pgx.ForEachRow(rows, []any{&src, &dsts, &idList, &ats}, func() error {
			if src == nil {
				unknown = true
				return nil
			}
			if len(idList) != len(dsts) || len(ats) != len(dsts) {
				return fmt.Errorf("edge list of %s: %d destinations, %d IDs, %d times", uuid.UUID(*src), len(dsts), len(idList), len(ats))
			}
			if byKey == nil {
				byKey = make(map[graphutil.EdgeKey]stored)
			}
			for i, dst := range dsts {
				byKey[graphutil.EdgeKey{Src: *src, Dst: dst}] = stored{idList[i], ats[i].UTC()}
			}
			return nil
		})
		return err
	})
	if err != nil {
		return err
	}
	if unknown {
		return linkgraph.ErrUnknownEdgeLinks
	}
	g.known.add(toCheck...)
	for i, e := range edges {
		j := b.Index[i]
		k := b.Keys[j]
		if s, ok := byKey[k]; ok {
			e.ID, e.UpdatedAt = s.id, s.at
		} else {
			e.ID, e.UpdatedAt = derived[j], b.UpdatedAt[j]
		}
	}
	return nil
}

// Edges implements linkgraph.Graph.
func (g *Graph) Edges(fromID, toID uuid.UUID, updatedBefore time.Time) (linkgraph.EdgeIterator, error) {
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("postgres graph: edges: %w", err)
	}
	before := graphutil.Timestamp(updatedBefore)
	// The first page starts at fromID; later ones resume after the last
	// (src, dst) seen. The upper bound is left out rather than compared with
	// uuid.Nil, which stands for "no bound".
	upper := func(n int) string {
		if toID == uuid.Nil {
			return ""
		}
		return fmt.Sprintf(" AND l.src < $%d", n)
	}
	// The edge lists are read in the order of their key, and each list's
	// edges sorted on their own (an incremental sort, over a list kept in
	// order already).
	const edges = "SELECT e.id, l.src, e.dst, e.at FROM edge_lists AS l, unnest(l.dsts, l.ids, l.updated) AS e (dst, id, at) WHERE "
	first := edges + "l.src >= $1 AND e.at < $2" + upper(4) + " ORDER BY l.src, e.dst LIMIT $3"
	rest := edges + "l.src >= $1 AND (l.src, e.dst) > ($1, $2) AND e.at < $3" + upper(5) + " ORDER BY l.src, e.dst LIMIT $4"
	fetch := func(ctx context.Context, last *linkgraph.Edge) ([]*linkgraph.Edge, error) {
		query, args := first, []any{fromID, before, pageSize}
		if last != nil {
			query, args = rest, []any{last.Src, last.Dst, before, pageSize}
		}
		if toID != uuid.Nil {
			args = append(args, toID)
		}
		rows, err := g.pool.Query(ctx, query, args...)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, func(row pgx.CollectableRow) (*linkgraph.Edge, error) {
			e := new(linkgraph.Edge)
			err := row.Scan(&e.ID, &e.Src, &e.Dst, &e.UpdatedAt)
			e.UpdatedAt = e.UpdatedAt.UTC()
			return e, err
		})
	}
	return graphutil.EdgeIterator{Pager: pager(g, "edges", graphutil.EmptyRange(fromID, toID), fetch)}, nil
}

// refreshEdgesSQL brings the older times of the lists of sources $1 up to
// $2; the lists already as new are left alone, so that refreshing twice
// writes nothing the second time.
const refreshEdgesSQL = `
UPDATE edge_lists AS l SET updated = (
	SELECT array_agg(GREATEST(u.at, $2) ORDER BY u.i) FROM unnest(l.updated) WITH ORDINALITY AS u (at, i)
)
WHERE l.src = ANY($1::UUID[]) AND EXISTS (SELECT 1 FROM unnest(l.updated) AS u (at) WHERE u.at < $2)`

// RefreshEdges implements linkgraph.Graph.
func (g *Graph) RefreshEdges(fromIDs []uuid.UUID, updatedAt time.Time) error {
	if err := g.check(); err != nil {
		return fmt.Errorf("postgres graph: refresh edges: %w", err)
	}
	if len(fromIDs) == 0 {
		return nil
	}
	clock := graphutil.NewClock()
	defer clock.Settle()
	at := clock.StampOrNow(updatedAt)
	err := retry(g.ctx, func(ctx context.Context) error {
		_, err := g.pool.Exec(ctx, refreshEdgesSQL, rawUUIDs(fromIDs), at)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres graph: refresh edges: %w", err)
	}
	return nil
}

// removeEmptiedEdgesSQL deletes the edge list of $1 when all its edges are
// older than $2; removeStaleEdgesSQL takes those edges out of a list that
// keeps some. Each re-reads the row it changes, so an upsert between them
// loses nothing.
const (
	removeEmptiedEdgesSQL = `
DELETE FROM edge_lists AS l
WHERE l.src = $1 AND NOT EXISTS (SELECT 1 FROM unnest(l.updated) AS u (at) WHERE u.at >= $2)`
	removeStaleEdgesSQL = `
UPDATE edge_lists AS l SET (dsts, ids, updated) = (
	SELECT array_agg(e.dst ORDER BY e.dst), array_agg(e.id ORDER BY e.dst), array_agg(e.at ORDER BY e.dst)
	FROM unnest(l.dsts, l.ids, l.updated) AS e (dst, id, at) WHERE e.at >= $2
)
WHERE l.src = $1 AND EXISTS (SELECT 1 FROM unnest(l.updated) AS u (at) WHERE u.at < $2)
	AND EXISTS (SELECT 1 FROM unnest(l.updated) AS u (at) WHERE u.at >= $2)`
)

// RemoveStaleEdges implements linkgraph.Graph.
func (g *Graph) RemoveStaleEdges(fromID uuid.UUID, updatedBefore time.Time) error {
	if err := g.check(); err != nil {
		return fmt.Errorf("postgres graph: remove stale edges from %s: %w", fromID, err)
	}
	before := graphutil.Timestamp(updatedBefore)
	err := retry(g.ctx, func(ctx context.Context) error {
		// One round trip, one transaction: a list left with no edges
		// goes, one left with some keeps those.
		b := &pgx.Batch{}
		b.Queue(removeEmptiedEdgesSQL, fromID, before)
		b.Queue(removeStaleEdgesSQL, fromID, before)
		return g.pool.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return fmt.Errorf("postgres graph: remove stale edges from %s: %w", fromID, err)
	}
	return nil
}

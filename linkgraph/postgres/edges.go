package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/internal/graphutil"
)

// upsertEdgesSQL inserts a batch and refreshes existing edges, unless an
// edge names an unknown link: then it writes nothing and returns one row
// with a NULL id. The check is one anti-join over the batch's distinct
// ends, checked against the links table's primary key (see migration 0004
// for why this replaced foreign keys).
const upsertEdgesSQL = `
WITH input (id, src, dst, updated_at) AS (
	SELECT * FROM unnest($1::UUID[], $2::UUID[], $3::UUID[], $4::TIMESTAMPTZ[])
), unknown AS (
	SELECT count(*) AS n FROM (SELECT src AS id FROM input UNION SELECT dst FROM input) ends
	WHERE NOT EXISTS (SELECT 1 FROM links WHERE links.id = ends.id)
), upserted AS (
	INSERT INTO edges (id, src, dst, updated_at)
	SELECT input.id, input.src, input.dst, input.updated_at FROM input, unknown WHERE unknown.n = 0
	ORDER BY input.src, input.dst
	ON CONFLICT (src, dst) DO UPDATE
		SET updated_at = GREATEST(edges.updated_at, excluded.updated_at)
	RETURNING id, src, dst, updated_at
)
SELECT id, src, dst, updated_at FROM upserted
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
	// The graph's clock is this process's, not the server's, so that a
	// crawler's time.Now and the stamps of its edges are comparable.
	b, err := graphutil.DedupEdges(edges, time.Now())
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
		if c := graphutil.Compare(b.Keys[x].Src, b.Keys[y].Src); c != 0 {
			return c
		}
		return graphutil.Compare(b.Keys[x].Dst, b.Keys[y].Dst)
	})
	n := len(order)
	// Plain [16]byte rather than uuid.UUID: pgx encodes the latter through
	// its driver.Valuer, a string per element, which cost a fifth of a
	// crawl's CPU. An edge's ID is derived from its ends, as in the other
	// backends (a row stored earlier keeps the ID it has).
	ids, srcs, dsts, ats := make([][16]byte, n), make([][16]byte, n), make([][16]byte, n), make([]time.Time, n)
	for i, j := range order {
		k := b.Keys[j]
		ids[i], srcs[i], dsts[i], ats[i] = graphutil.EdgeID(k.Src, k.Dst), k.Src, k.Dst, b.UpdatedAt[j]
	}

	type stored struct {
		id uuid.UUID
		at time.Time
	}
	var (
		byKey   map[graphutil.EdgeKey]stored
		unknown bool
	)
	err = retry(g.ctx, func(ctx context.Context) error {
		rows, err := g.pool.Query(ctx, upsertEdgesSQL, ids, srcs, dsts, ats)
		if err != nil {
			return err
		}
		byKey = make(map[graphutil.EdgeKey]stored, n)
		unknown = false
		var (
			id, src, dst *uuid.UUID
			at           *time.Time
		)
		_, err = pgx.ForEachRow(rows, []any{&id, &src, &dst, &at}, func() error {
			if id == nil || src == nil || dst == nil || at == nil {
				unknown = true
				return nil
			}
			byKey[graphutil.EdgeKey{Src: *src, Dst: *dst}] = stored{*id, at.UTC()}
			return nil
		})
		return err
	})
	if isForeignKeyViolation(err) {
		// A database migrated by an older program that still has the
		// foreign keys (see migration 0004).
		return fmt.Errorf("%w (%w)", linkgraph.ErrUnknownEdgeLinks, err)
	}
	if err != nil {
		return err
	}
	if unknown {
		return linkgraph.ErrUnknownEdgeLinks
	}
	for i, e := range edges {
		s, ok := byKey[b.Keys[b.Index[i]]]
		if !ok {
			return fmt.Errorf("database returned no row for edge %s -> %s", e.Src, e.Dst)
		}
		e.ID, e.UpdatedAt = s.id, s.at
	}
	return nil
}

func isForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}

// Edges implements linkgraph.Graph.
func (g *Graph) Edges(fromID, toID uuid.UUID, updatedBefore time.Time) (linkgraph.EdgeIterator, error) {
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("postgres graph: edges: %w", err)
	}
	before := graphutil.Bound(updatedBefore)
	// The first page starts at fromID; later ones resume after the last
	// (src, dst) seen. The upper bound is left out rather than compared with
	// uuid.Nil, which stands for "no bound".
	upper := func(n int) string {
		if toID == uuid.Nil {
			return ""
		}
		return fmt.Sprintf(" AND src < $%d", n)
	}
	first := "SELECT id, src, dst, updated_at FROM edges WHERE src >= $1 AND updated_at < $2" + upper(4) + " ORDER BY src, dst LIMIT $3"
	rest := "SELECT id, src, dst, updated_at FROM edges WHERE (src, dst) > ($1, $2) AND updated_at < $3" + upper(5) + " ORDER BY src, dst LIMIT $4"
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

// RefreshEdges implements linkgraph.Graph. The WHERE clause leaves alone the
// edges already as new, so that refreshing twice writes nothing the second
// time.
func (g *Graph) RefreshEdges(fromIDs []uuid.UUID, updatedAt time.Time) error {
	if err := g.check(); err != nil {
		return fmt.Errorf("postgres graph: refresh edges: %w", err)
	}
	if len(fromIDs) == 0 {
		return nil
	}
	if updatedAt.IsZero() {
		updatedAt = time.Now()
	}
	at := graphutil.Timestamp(updatedAt)
	err := retry(g.ctx, func(ctx context.Context) error {
		_, err := g.pool.Exec(ctx, "UPDATE edges SET updated_at = $2 WHERE src = ANY($1::UUID[]) AND updated_at < $2", rawUUIDs(fromIDs), at)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres graph: refresh edges: %w", err)
	}
	return nil
}

// RemoveStaleEdges implements linkgraph.Graph.
func (g *Graph) RemoveStaleEdges(fromID uuid.UUID, updatedBefore time.Time) error {
	if err := g.check(); err != nil {
		return fmt.Errorf("postgres graph: remove stale edges from %s: %w", fromID, err)
	}
	before := graphutil.Bound(updatedBefore)
	err := retry(g.ctx, func(ctx context.Context) error {
		_, err := g.pool.Exec(ctx, "DELETE FROM edges WHERE src = $1 AND updated_at < $2", fromID, before)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres graph: remove stale edges from %s: %w", fromID, err)
	}
	return nil
}

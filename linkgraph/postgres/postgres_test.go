package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"github.com/linksrus/linksrus/internal/pgtest"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/graphtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testDatabase returns a database of the test's own (see internal/pgtest).
func testDatabase(t testing.TB) string {
	t.Helper()
	return pgtest.Database(t, "linkgraph")
}

func TestConformance(t *testing.T) {
	dsn := testDatabase(t)
	graphtest.Run(t, func(t *testing.T) linkgraph.Graph {
		g, err := Open(t.Context(), dsn, Options{})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		if _, err := g.pool.Exec(t.Context(), "TRUNCATE edge_lists, links"); err != nil {
			t.Fatalf("empty the tables: %v", err)
		}
		return g
	})
}

func TestConcurrentOpenMigratesOnce(t *testing.T) {
	dsn := testDatabase(t)
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			g, err := linkgraph.Open(t.Context(), dsn)
			if err == nil {
				err = g.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("concurrent Open %d: %v", i, err)
		}
	}
	g, err := Open(t.Context(), dsn, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer g.Close()
	ms, err := loadMigrations()
	if err != nil {
		t.Fatalf("loadMigrations: %v", err)
	}
	var applied int
	if err := g.pool.QueryRow(t.Context(), "SELECT count(*) FROM linkgraph_schema_migrations").Scan(&applied); err != nil {
		t.Fatalf("count migrations: %v", err)
	}
	if applied != len(ms) {
		t.Fatalf("%d migrations recorded, want %d", applied, len(ms))
	}
}

func TestOpenSchemes(t *testing.T) {
	dsn := testDatabase(t)
	for _, scheme := range []string{"postgres", "postgresql"} {
		u, _ := url.Parse(dsn)
		u.Scheme = scheme
		g, err := linkgraph.Open(t.Context(), u.String())
		if err != nil {
			t.Fatalf("Open(%s://...): %v", scheme, err)
		}
		if _, ok := g.(*Graph); !ok {
			t.Fatalf("Open(%s://...) = %T", scheme, g)
		}
		g.Close()
	}
}

func TestOpenUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	// Port 1 on loopback: nothing listens, so the connection is refused.
	g, err := linkgraph.Open(ctx, "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	if err == nil {
		g.Close()
		t.Fatal("Open of an unreachable server succeeded")
	}
	if _, err := linkgraph.Open(ctx, "postgres://127.0.0.1:5432/x?pool_max_conns=zero"); err == nil {
		t.Fatal("Open with a malformed pool option succeeded")
	}
}

// Migration 0005 moves the edges of a database as migrations 0001-0004
// left it (a row per edge) into edge lists, IDs (random ones, written before
// IDs were derived from the ends) and times kept; the upsert's own check
// still refuses edges to unknown links.
func TestMigrationToEdgeLists(t *testing.T) {
	dsn := testDatabase(t)
	g, err := Open(t.Context(), dsn, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	ctx := t.Context()
	links := []*linkgraph.Link{{URL: "https://example.com/a"}, {URL: "https://example.com/b"}, {URL: "https://example.com/c"}}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	a, b, c := links[0].ID, links[1].ID, links[2].ID
	t1 := time.Date(2024, 1, 2, 3, 4, 5, 6000, time.UTC)
	t2 := t1.Add(time.Hour)
	old := []linkgraph.Edge{
		{ID: uuid.New(), Src: a, Dst: b, UpdatedAt: t1},
		{ID: uuid.New(), Src: a, Dst: c, UpdatedAt: t2},
		{ID: uuid.New(), Src: b, Dst: a, UpdatedAt: t2},
	}
	// The schema of migrations 0001-0004, with its edges.
	for _, q := range []string{
		`DROP TABLE edge_lists`,
		`DELETE FROM linkgraph_schema_migrations WHERE version = 5`,
		`CREATE TABLE edges (src UUID NOT NULL, dst UUID NOT NULL, id UUID NOT NULL, updated_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (src, dst))`,
	} {
		if _, err := g.pool.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, e := range old {
		if _, err := g.pool.Exec(ctx, `INSERT INTO edges (src, dst, id, updated_at) VALUES ($1, $2, $3, $4)`, e.Src, e.Dst, e.ID, e.UpdatedAt); err != nil {
			t.Fatal(err)
		}
	}
	// A process of the older version writes an edge while the migration
	// starts: the migration waits for it and moves it too.
	late := linkgraph.Edge{ID: uuid.New(), Src: a, Dst: a, UpdatedAt: t1}
	old = append(old, late)
	oldProcess, err := g.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oldProcess.Exec(ctx, `INSERT INTO edges (src, dst, id, updated_at) VALUES ($1, $2, $3, $4)`, late.Src, late.Dst, late.ID, late.UpdatedAt); err != nil {
		t.Fatal(err)
	}
	type opened struct {
		g   *Graph
		err error
	}
	migrated := make(chan opened, 1)
	go func() {
		g, err := Open(ctx, dsn, Options{})
		migrated <- opened{g, err}
	}()
	time.Sleep(200 * time.Millisecond)
	if err := oldProcess.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	g.Close()
	o := <-migrated
	if g, err = o.g, o.err; err != nil {
		t.Fatalf("Open again: %v", err)
	}
	defer g.Close()
	var edgesTable *string
	if err := g.pool.QueryRow(ctx, `SELECT to_regclass('edges')::TEXT`).Scan(&edgesTable); err != nil || edgesTable != nil {
		t.Fatalf("the edges table after migrating: %v (%v)", edgesTable, err)
	}
	got := map[linkgraph.Edge]bool{}
	it, err := g.Edges(uuid.Nil, uuid.Max, t2.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for it.Next() {
		got[*it.Edge()] = true
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	for _, e := range old {
		if !got[e] {
			t.Errorf("edge %v lost by the migration; have %v", e, got)
		}
	}
	if len(got) != len(old) {
		t.Errorf("%d edges after migrating, want %d", len(got), len(old))
	}
	// Upserting an edge the migration moved keeps its ID.
	again := &linkgraph.Edge{Src: a, Dst: b}
	if err := g.UpsertEdge(again); err != nil {
		t.Fatal(err)
	}
	if again.ID != old[0].ID || !again.UpdatedAt.After(t2) {
		t.Errorf("upserted again: %v, want ID %s and a new time", again, old[0].ID)
	}

	err = g.UpsertEdges([]*linkgraph.Edge{{Src: c, Dst: a}, {Src: c, Dst: uuid.New()}})
	if !errors.Is(err, linkgraph.ErrUnknownEdgeLinks) {
		t.Fatalf("UpsertEdges to an unknown link: %v, want ErrUnknownEdgeLinks", err)
	}
	var lists int
	if err := g.pool.QueryRow(ctx, `SELECT count(*) FROM edge_lists WHERE src = $1`, c).Scan(&lists); err != nil || lists != 0 {
		t.Fatalf("%d edge lists stored by a refused batch (%v)", lists, err)
	}
}

// Edge lists longer than an iterator's page are read whole, in (source,
// destination) order, with pages ending inside a list; upserts of one
// source's edges from several clients at once all land in its list.
func TestEdgeListsPagedAndConcurrent(t *testing.T) {
	g, err := Open(t.Context(), testDatabase(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	const perSource = 700 // two lists, so pages of 1,000 end inside the second
	links := make([]*linkgraph.Link, 2+perSource)
	for i := range links {
		links[i] = &linkgraph.Link{URL: fmt.Sprintf("https://example.com/%d", i)}
	}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	srcs := []uuid.UUID{links[0].ID, links[1].ID}
	// Each source's edges come from 7 clients at once, 100 each.
	var wg sync.WaitGroup
	errs := make(chan error, 14)
	for _, src := range srcs {
		for c := range 7 {
			wg.Go(func() {
				var edges []*linkgraph.Edge
				for _, l := range links[2+c*100 : 2+(c+1)*100] {
					edges = append(edges, &linkgraph.Edge{Src: src, Dst: l.ID})
				}
				if err := g.UpsertEdges(edges); err != nil {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	it, err := g.Edges(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var got []*linkgraph.Edge
	for it.Next() {
		got = append(got, it.Edge())
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2*perSource {
		t.Fatalf("%d edges read, want %d", len(got), 2*perSource)
	}
	for i := 1; i < len(got); i++ {
		p, e := got[i-1], got[i]
		if c := linkgraph.CompareIDs(p.Src, e.Src); c > 0 || c == 0 && linkgraph.CompareIDs(p.Dst, e.Dst) >= 0 {
			t.Fatalf("edge %d (%s -> %s) after (%s -> %s): not in (source, destination) order", i, e.Src, e.Dst, p.Src, p.Dst)
		}
	}
}

package postgres

import (
	"context"
	"errors"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/linksrus/linksrus/internal/pgtest"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/graphtest"
	"go.uber.org/goleak"
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
		g, err := Open(t.Context(), dsn)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		if _, err := g.pool.Exec(t.Context(), "TRUNCATE edges, links"); err != nil {
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
	g, err := Open(t.Context(), dsn)
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

func TestRetry(t *testing.T) {
	conflict := &pgconn.PgError{Code: "40001"}
	calls := 0
	err := retry(t.Context(), func(context.Context) error {
		if calls++; calls < 3 {
			return conflict
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("retry of two serialization failures: %v after %d calls, want success after 3", err, calls)
	}

	calls = 0
	err = retry(t.Context(), func(context.Context) error { calls++; return conflict })
	if !errors.Is(err, conflict) || calls != maxAttempts {
		t.Fatalf("endless conflicts: %v after %d calls, want the conflict after %d", err, calls, maxAttempts)
	}

	calls = 0
	other := &pgconn.PgError{Code: "23505"}
	err = retry(t.Context(), func(context.Context) error { calls++; return other })
	if !errors.Is(err, other) || calls != 1 {
		t.Fatalf("unique violation: %v after %d calls, want no retry", err, calls)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err = retry(ctx, func(context.Context) error { return conflict })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("retry with a cancelled context = %v, want context.Canceled", err)
	}
}

// Migration 0004 takes the edges' foreign keys away, from a database that
// has them, and the upsert's own check still refuses edges to unknown
// links.
func TestMigrationDropsEdgeForeignKeys(t *testing.T) {
	dsn := testDatabase(t)
	g, err := Open(t.Context(), dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	ctx := t.Context()
	foreignKeys := func(g *Graph) int {
		var n int
		err := g.pool.QueryRow(ctx, `SELECT count(*) FROM pg_constraint WHERE conrelid = 'edges'::regclass AND contype = 'f'`).Scan(&n)
		if err != nil {
			t.Fatalf("count foreign keys: %v", err)
		}
		return n
	}
	if n := foreignKeys(g); n != 0 {
		t.Fatalf("a new database has %d foreign keys on edges", n)
	}
	// A database as migration 0003 left it.
	for _, q := range []string{
		`ALTER TABLE edges ADD CONSTRAINT edges_src_fkey FOREIGN KEY (src) REFERENCES links (id)`,
		`ALTER TABLE edges ADD CONSTRAINT edges_dst_fkey FOREIGN KEY (dst) REFERENCES links (id)`,
		`DELETE FROM linkgraph_schema_migrations WHERE version = 4`,
	} {
		if _, err := g.pool.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	g.Close()
	if g, err = Open(ctx, dsn); err != nil {
		t.Fatalf("Open again: %v", err)
	}
	defer g.Close()
	if n := foreignKeys(g); n != 0 {
		t.Fatalf("%d foreign keys on edges after migrating", n)
	}
	a := &linkgraph.Link{URL: "https://example.com/a"}
	if err := g.UpsertLink(a); err != nil {
		t.Fatal(err)
	}
	err = g.UpsertEdges([]*linkgraph.Edge{{Src: a.ID, Dst: a.ID}, {Src: a.ID, Dst: uuid.New()}})
	if !errors.Is(err, linkgraph.ErrUnknownEdgeLinks) {
		t.Fatalf("UpsertEdges to an unknown link: %v, want ErrUnknownEdgeLinks", err)
	}
	var edges int
	if err := g.pool.QueryRow(ctx, `SELECT count(*) FROM edges`).Scan(&edges); err != nil || edges != 0 {
		t.Fatalf("%d edges stored by a refused batch (%v)", edges, err)
	}
}

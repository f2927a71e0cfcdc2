package postgres_test

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"

	"github.com/linksrus/linksrus/internal/pgtest"
	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/indextest"
	"github.com/linksrus/linksrus/textindex/postgres"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) {
	dsn := pgtest.Database(t, "textindex")
	ctx := context.Background()
	indextest.Run(t, func(t *testing.T) textindex.Indexer {
		idx, err := postgres.Open(ctx, dsn)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { idx.Close() })
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "TRUNCATE textindex_documents"); err != nil {
			t.Fatalf("empty the index: %v", err)
		}
		return idx
	})
}

// TestConcurrentOpen opens a fresh database from several goroutines at
// once: the migrations must be applied exactly once and every opener must
// succeed.
func TestConcurrentOpen(t *testing.T) {
	dsn := pgtest.Database(t, "textindex")
	ctx := context.Background()
	const openers = 6
	var wg sync.WaitGroup
	errs := make([]error, openers)
	for n := range openers {
		wg.Go(func() {
			idx, err := postgres.Open(ctx, dsn)
			if err == nil {
				err = idx.Close()
			}
			errs[n] = err
		})
	}
	wg.Wait()
	for n, err := range errs {
		if err != nil {
			t.Fatalf("opener %d: %v", n, err)
		}
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM textindex_schema_migrations").Scan(&n); err != nil {
		t.Fatalf("count migrations: %v", err)
	}
	if n != 1 {
		t.Fatalf("%d migration rows, want 1", n)
	}
}

// TestUnstorableText checks that text PostgreSQL cannot store is cleaned
// rather than rejected.
func TestUnstorableText(t *testing.T) {
	idx, err := postgres.Open(context.Background(), pgtest.Database(t, "textindex"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer idx.Close()
	doc := &textindex.Document{LinkID: [16]byte{1}, Title: "nul\x00byte", Content: "bad \xff utf8"}
	if err := idx.Index(doc); err != nil {
		t.Fatalf("Index: %v", err)
	}
	got, err := idx.FindByID(doc.LinkID)
	if err != nil {
		t.Fatalf("FindByID: %v", err)
	}
	if got.Title != "nul\uFFFDbyte" || got.Content != "bad \uFFFD utf8" {
		t.Fatalf("got title %q content %q", got.Title, got.Content)
	}
}

func BenchmarkPostgres(b *testing.B) {
	indextest.Bench(b, func(b *testing.B) textindex.Indexer {
		idx, err := postgres.Open(context.Background(), pgtest.Database(b, "textindex"))
		if err != nil {
			b.Fatalf("Open: %v", err)
		}
		b.Cleanup(func() { idx.Close() })
		return idx
	})
}

package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/indextest"
	"github.com/linksrus/linksrus/textindex/sqlite"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newIndex(t *testing.T) textindex.Indexer {
	idx, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "sub", "dir", "index.db"), sqlite.Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := idx.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return idx
}

func TestConformance(t *testing.T) { indextest.Run(t, newIndex) }

func BenchmarkSQLite(b *testing.B) {
	indextest.Bench(b, func(b *testing.B) textindex.Indexer {
		idx, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "index.db"), sqlite.Options{})
		if err != nil {
			b.Fatalf("Open: %v", err)
		}
		b.Cleanup(func() { idx.Close() })
		return idx
	})
}

func TestOpenURLForms(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	abs := filepath.Join(dir, "a", "b", "abs.db")
	idx, err := textindex.Open(ctx, "sqlite://"+abs)
	if err != nil {
		t.Fatalf("Open(absolute): %v", err)
	}
	idx.Close()
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("absolute URL did not create %s: %v", abs, err)
	}

	t.Chdir(dir)
	idx, err = textindex.Open(ctx, "sqlite:rel/index.db")
	if err != nil {
		t.Fatalf("Open(relative): %v", err)
	}
	idx.Close()
	if _, err := os.Stat(filepath.Join(dir, "rel", "index.db")); err != nil {
		t.Fatalf("relative URL did not create the file: %v", err)
	}

	for _, bad := range []string{"sqlite://host/x.db", "sqlite:///x.db?cache=shared", "sqlite://", "sqlite:///", "sqlite:///dir/%3Fx.db"} {
		idx, err := textindex.Open(ctx, bad)
		if err == nil {
			idx.Close()
			t.Errorf("Open(%q) succeeded, want an error", bad)
		}
	}
}

// TestReopen checks that the index persists and that two indexes can share
// one file, as two processes would.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	first, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	second, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatalf("second Open: %v", err)
	}
	doc := &textindex.Document{LinkID: uuid.New(), Title: "persisted", Content: "kept on disk"}
	if err := first.Index(doc); err != nil {
		t.Fatalf("Index: %v", err)
	}
	if err := second.UpdateScore(doc.LinkID, 0.5); err != nil {
		t.Fatalf("UpdateScore from the second handle: %v", err)
	}
	first.Close()
	second.Close()

	again, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer again.Close()
	got, err := again.FindByID(doc.LinkID)
	if err != nil {
		t.Fatalf("FindByID after reopen: %v", err)
	}
	if got.Content != doc.Content || got.PageRank != 0.5 {
		t.Fatalf("after reopen got %+v", got)
	}
}

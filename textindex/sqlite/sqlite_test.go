package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/indextest"
	"github.com/linksrus/linksrus/textindex/sqlite"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newIndex(t *testing.T) textindex.Indexer {
	idx, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "sub", "dir", "index.db"))
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
		idx, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "index.db"))
		if err != nil {
			b.Fatalf("Open: %v", err)
		}
		b.Cleanup(func() { idx.Close() })
		return idx
	})
}

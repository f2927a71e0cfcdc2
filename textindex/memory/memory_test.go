package memory_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/indextest"
	"github.com/linksrus/linksrus/textindex/memory"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newIndex(t *testing.T) textindex.Indexer {
	idx := memory.New()
	t.Cleanup(func() { idx.Close() })
	return idx
}

func TestConformance(t *testing.T) { indextest.Run(t, newIndex) }

func BenchmarkMemory(b *testing.B) {
	indextest.Bench(b, func(b *testing.B) textindex.Indexer {
		idx := memory.New()
		b.Cleanup(func() { idx.Close() })
		return idx
	})
}

// TestLoad runs the load benchmark's harness (indextest.Load) on a small
// corpus: every document is found, the mixed queries find something, and
// the broad ones are broad.
func TestLoad(t *testing.T) {
	idx := memory.New()
	const n = 3000
	res, err := indextest.Load(t.Context(), idx, n, 50, 10)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := idx.Count(t.Context()); err != nil || c != n {
		t.Errorf("Count = %d, %v; want %d", c, err, n)
	}
	if res.Mixed.Queries != 50 || res.Mixed.Hits < 1 || res.Broad.Queries != 10 || res.Broad.Hits < n/3 {
		t.Errorf("Load: %v", res)
	}
	t.Log(res)
}

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

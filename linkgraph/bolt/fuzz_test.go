package bolt_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/bolt"
)

// FuzzOpenCorrupt writes the fuzzer's bytes over a small graph.db at the
// fuzzer's offset and uses the result: errors are fine, a panic or a fault
// is not.
func FuzzOpenCorrupt(f *testing.F) {
	dir := f.TempDir()
	clean := filepath.Join(dir, "clean.db")
	g, err := bolt.Open(clean, bolt.Options{NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	var links []*linkgraph.Link
	for i := range 400 {
		links = append(links, &linkgraph.Link{URL: fmt.Sprintf("https://example.com/%d", i), RetrievedAt: time.Now()})
	}
	if err := g.UpsertLinks(links); err != nil {
		f.Fatal(err)
	}
	edges := make([]*linkgraph.Edge, 0, len(links))
	for i := 1; i < len(links); i++ {
		edges = append(edges, &linkgraph.Edge{Src: links[0].ID, Dst: links[i].ID})
	}
	if err := g.UpsertEdges(edges); err != nil {
		f.Fatal(err)
	}
	if err := g.Close(); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(clean)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint32(4096*2+20), []byte{0xff, 0xff})
	f.Add(uint32(4096*3+8), []byte{0x10})
	f.Add(uint32(16), []byte("garbage in the meta page"))
	f.Fuzz(func(t *testing.T, off uint32, garbage []byte) {
		b := append([]byte(nil), data...)
		copy(b[int(off)%len(b):], garbage)
		path := filepath.Join(t.TempDir(), "graph.db")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		useDamaged(t, path)
	})
}

package bolt

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/linksrus/linksrus/linkgraph"
)

// A read-only graph reads what was stored, writes nothing (the file is
// the same byte for byte), refuses writes, shares the file with other
// readers, and is locked out while a writer holds the file.
func TestReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graph.db")
	g, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	links := []*linkgraph.Link{{URL: "https://a.example/"}, {URL: "https://b.example/"}}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	if err := g.UpsertEdges([]*linkgraph.Edge{{Src: links[0].ID, Dst: links[1].ID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(t.Context(), path, Options{ReadOnly: true, LockTimeout: 50 * time.Millisecond}); !errors.Is(err, linkgraph.ErrLocked) {
		t.Errorf("read-only Open beside a writer: %v, want ErrLocked", err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	r1, err := linkgraph.Open(t.Context(), "bolt://"+path+"?mode=ro")
	if err != nil {
		t.Fatalf("Open ?mode=ro: %v", err)
	}
	r2, err := Open(t.Context(), path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("a second read-only Open: %v", err)
	}
	if l, err := r1.FindLink(links[1].ID); err != nil || l.URL != links[1].URL {
		t.Errorf("FindLink: %v, %v", l, err)
	}
	it, err := r2.Edges(links[0].ID, links[1].ID, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for it.Next() {
		n++
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil || n != 1 {
		t.Errorf("read-only Edges: %d edges, %v", n, err)
	}
	if err := r1.UpsertLinks([]*linkgraph.Link{{URL: "https://c.example/"}}); err == nil {
		t.Error("UpsertLinks on a read-only graph succeeded")
	}
	if _, err := Open(t.Context(), path, Options{LockTimeout: 50 * time.Millisecond}); !errors.Is(err, linkgraph.ErrLocked) {
		t.Errorf("Open for writing beside readers: %v, want ErrLocked", err)
	}
	if err := errors.Join(r1.Close(), r2.Close()); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Error("reading the graph read-only changed its file")
	}

	missing := filepath.Join(t.TempDir(), "none", "graph.db")
	if _, err := Open(t.Context(), missing, Options{ReadOnly: true}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("read-only Open of a missing file: %v, want ErrNotExist", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("read-only Open created the directory (%v)", err)
	}
	if _, err := linkgraph.Open(t.Context(), "bolt://"+path+"?mode=rx"); err == nil {
		t.Error("mode=rx accepted")
	}
}

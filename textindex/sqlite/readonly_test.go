package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

func searchCount(t *testing.T, idx *Index, word string) uint64 {
	t.Helper()
	it, err := idx.Search(textindex.Query{Expression: word})
	if err != nil {
		t.Fatalf("search %q: %v", word, err)
	}
	defer it.Close()
	for it.Next() {
	}
	if err := it.Error(); err != nil {
		t.Fatalf("search %q: %v", word, err)
	}
	return it.TotalCount()
}

// TestOpenReadOnlyWhileWriting reads an index another connection pool is
// writing, as `linksrus serve` does while a crawl runs.
func TestOpenReadOnlyWhileWriting(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	w, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Index(&textindex.Document{LinkID: uuid.New(), URL: "http://a/", Content: "gopher one"}); err != nil {
		t.Fatal(err)
	}
	idx, err := textindex.Open(ctx, "sqlite://"+filepath.ToSlash(path)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	r := idx.(*Index)
	defer r.Close()
	if n := searchCount(t, r, "gopher"); n != 1 {
		t.Errorf("reader sees %d gophers, want 1", n)
	}
	// Writes go on while the reader is open, and it sees them.
	if err := w.Index(&textindex.Document{LinkID: uuid.New(), URL: "http://b/", Content: "gopher two"}); err != nil {
		t.Fatal(err)
	}
	if n := searchCount(t, r, "gopher"); n != 2 {
		t.Errorf("reader sees %d gophers after a write, want 2", n)
	}
	if err := r.Index(&textindex.Document{LinkID: uuid.New(), Content: "x"}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Index on a read-only index = %v, want ErrReadOnly", err)
	}
	if err := r.UpdateScore(uuid.New(), 0.5); !errors.Is(err, ErrReadOnly) {
		t.Errorf("UpdateScore on a read-only index = %v, want ErrReadOnly", err)
	}
}

// TestOpenReadOnlyDirectory opens an index in a directory it may not
// write to (pretended: tests run as root, who may write anywhere).
func TestOpenReadOnlyDirectory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "index.db")
	w, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Index(&textindex.Document{LinkID: uuid.New(), URL: "http://a/", Content: "gopher"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	probed := ""
	saved := dirWritable
	dirWritable = func(d string) bool { probed = d; return false }
	defer func() { dirWritable = saved }()
	r, err := Open(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if probed != dir {
		t.Errorf("probed %q for writing, want %q", probed, dir)
	}
	if n := searchCount(t, r, "gopher"); n != 1 {
		t.Errorf("immutable reader sees %d gophers, want 1", n)
	}
}

func TestOpenReadOnlyRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := Open(ctx, filepath.Join(dir, "missing.db"), Options{ReadOnly: true}); err == nil {
		t.Error("opened a missing index")
	}
	if _, err := textindex.Open(ctx, "sqlite://"+filepath.ToSlash(dir)+"/x.db?mode=rw"); err == nil {
		t.Error("accepted ?mode=rw")
	}
}

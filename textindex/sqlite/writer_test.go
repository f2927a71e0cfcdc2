package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

func openTest(t *testing.T) *Index {
	t.Helper()
	idx, err := Open(context.Background(), filepath.Join(t.TempDir(), "index.db"), Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { idx.Close() })
	return idx
}

func count(t *testing.T, idx *Index, expr string) uint64 {
	t.Helper()
	it, err := idx.Search(textindex.Query{Expression: expr})
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	defer it.Close()
	var n uint64
	for it.Next() {
		n++
	}
	if n != it.TotalCount() {
		t.Fatalf("Search(%q): %d results, TotalCount %d", expr, n, it.TotalCount())
	}
	return n
}

func newOp(fn func(ctx context.Context, w *writer, text *textBatch) error) *writeOp {
	return &writeOp{fn: fn, done: make(chan error, 1)}
}

// TestGroupWithRepeatedDocument writes two versions of one document, and a
// replacement of an already committed one, in a single group.
func TestGroupWithRepeatedDocument(t *testing.T) {
	idx := openTest(t)
	id := uuid.New()
	if err := idx.Index(&textindex.Document{LinkID: id, Content: "committed alpha"}); err != nil {
		t.Fatalf("Index: %v", err)
	}
	ops := []*writeOp{
		newOp(indexOp(&textindex.Document{LinkID: id, Content: "first beta"}, fieldsOf("", "", "", "first beta", ""), nil)),
		newOp(indexOp(&textindex.Document{LinkID: id, Content: "second gamma"}, fieldsOf("", "", "", "second gamma", ""), nil)),
	}
	idx.w.leader <- struct{}{}
	idx.w.commitGroup(ops)
	<-idx.w.leader
	for _, op := range ops {
		if err := <-op.done; err != nil {
			t.Fatalf("op: %v", err)
		}
	}
	for expr, want := range map[string]uint64{"alpha": 0, "beta": 0, "gamma": 1, "committed": 0, "first": 0, "second": 1} {
		if got := count(t, idx, expr); got != want {
			t.Errorf("Search(%q) = %d hits, want %d", expr, got, want)
		}
	}
	doc, err := idx.FindByID(id)
	if err != nil || doc.Content != "second gamma" {
		t.Fatalf("FindByID = %+v, %v; want the second version", doc, err)
	}
}

// TestGroupIsolatesFailures checks that one failing write in a group fails
// alone: the others are committed.
func TestGroupIsolatesFailures(t *testing.T) {
	idx := openTest(t)
	boom := errors.New("boom")
	good := &textindex.Document{LinkID: uuid.New(), Content: "survivor"}
	ops := []*writeOp{
		newOp(indexOp(good, docFields(good), nil)),
		newOp(func(context.Context, *writer, *textBatch) error { return boom }),
	}
	idx.w.leader <- struct{}{}
	idx.w.commitGroup(ops)
	<-idx.w.leader
	if err := <-ops[0].done; err != nil {
		t.Fatalf("good op: %v", err)
	}
	if err := <-ops[1].done; !errors.Is(err, boom) {
		t.Fatalf("bad op: got %v, want boom", err)
	}
	if got := count(t, idx, "survivor"); got != 1 {
		t.Fatalf("the good document was not committed (%d hits)", got)
	}
}

package crawler

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/pipeline"
	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/memory"
)

// batchRecorder is an Indexer and a textindex.BatchIndexer that records
// what it is given and fails IndexBatch with err.
type batchRecorder struct {
	mu      sync.Mutex
	single  []*textindex.Document
	batches [][]*textindex.Document
	err     error
}

func (r *batchRecorder) Index(doc *textindex.Document) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.single = append(r.single, doc)
	return nil
}

func (r *batchRecorder) IndexBatch(docs []*textindex.Document) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, docs)
	return r.err
}

func indexBatch(n int, noIndex func(i int) bool) []pipeline.Payload {
	batch := make([]pipeline.Payload, n)
	for i := range batch {
		p := NewPayload(uuid.New(), fmt.Sprintf("http://example.com/%d", i), time.Time{})
		p.Title, p.TextContent = fmt.Sprintf("title %d", i), fmt.Sprintf("text %d", i)
		p.NoIndex = noIndex(i)
		batch[i] = p
	}
	return batch
}

// A batch goes to an IndexBatch-capable index as one call, without the
// noindex pages, each page with its fields and the batch's time.
func TestTextIndexerUsesIndexBatch(t *testing.T) {
	rec := &batchRecorder{}
	ti := NewTextIndexer(rec)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ti.now = func() time.Time { return now }
	batch := indexBatch(5, func(i int) bool { return i == 2 })
	defer func() {
		for _, p := range batch {
			p.MarkAsProcessed()
		}
	}()
	if err := ti.ProcessBatch(context.Background(), batch); err != nil {
		t.Fatalf("ProcessBatch: %v", err)
	}
	if len(rec.single) != 0 || len(rec.batches) != 1 {
		t.Fatalf("%d Index and %d IndexBatch calls, want 0 and 1", len(rec.single), len(rec.batches))
	}
	got := rec.batches[0]
	want := []int{0, 1, 3, 4}
	if len(got) != len(want) {
		t.Fatalf("IndexBatch got %d documents, want %d (noindex page skipped)", len(got), len(want))
	}
	for n, i := range want {
		p := batch[i].(*Payload)
		wantDoc := textindex.Document{LinkID: p.LinkID, URL: p.URL, Title: p.Title, Content: p.TextContent, IndexedAt: now,
			ContentHash: textindex.ContentHash(p.Title, p.TextContent)}
		if !reflect.DeepEqual(*got[n], wantDoc) {
			t.Errorf("document %d = %+v, want %+v", n, *got[n], wantDoc)
		}
	}

	// A batch of noindex pages only makes no call.
	none := indexBatch(3, func(int) bool { return true })
	defer func() {
		for _, p := range none {
			p.MarkAsProcessed()
		}
	}()
	if err := ti.ProcessBatch(context.Background(), none); err != nil {
		t.Fatalf("ProcessBatch(noindex only): %v", err)
	}
	if len(rec.batches) != 1 {
		t.Fatalf("%d IndexBatch calls after a noindex-only batch, want still 1", len(rec.batches))
	}

	// Process (a page on its own) still uses Index.
	p := NewPayload(uuid.New(), "http://example.com/single", time.Time{})
	defer p.MarkAsProcessed()
	if _, err := ti.Process(context.Background(), p); err != nil {
		t.Fatalf("Process: %v", err)
	}
	if len(rec.single) != 1 || rec.single[0].LinkID != p.LinkID {
		t.Fatalf("Process made Index calls %v, want one for %s", rec.single, p.LinkID)
	}
}

func TestTextIndexerIndexBatchError(t *testing.T) {
	boom := errors.New("boom")
	rec := &batchRecorder{err: boom}
	batch := indexBatch(2, func(int) bool { return false })
	defer func() {
		for _, p := range batch {
			p.MarkAsProcessed()
		}
	}()
	if err := NewTextIndexer(rec).ProcessBatch(context.Background(), batch); !errors.Is(err, boom) {
		t.Fatalf("ProcessBatch: err = %v, want boom", err)
	}
}

// Against a real backend, a batch is searchable afterwards and a page
// without a LinkID fails the batch with the backend's sentinel error.
func TestTextIndexerBatchMemory(t *testing.T) {
	ix := memory.New()
	defer ix.Close()
	batch := indexBatch(4, func(i int) bool { return i == 3 })
	defer func() {
		for _, p := range batch {
			p.MarkAsProcessed()
		}
	}()
	if err := NewTextIndexer(ix).ProcessBatch(context.Background(), batch); err != nil {
		t.Fatalf("ProcessBatch: %v", err)
	}
	for i, pp := range batch {
		_, err := ix.FindByID(pp.(*Payload).LinkID)
		if wantFound := i != 3; (err == nil) != wantFound {
			t.Errorf("page %d: FindByID err = %v, want found = %v", i, err, wantFound)
		}
	}

	bad := indexBatch(2, func(int) bool { return false })
	defer func() {
		for _, p := range bad {
			p.MarkAsProcessed()
		}
	}()
	bad[1].(*Payload).LinkID = uuid.Nil
	err := NewTextIndexer(ix).ProcessBatch(context.Background(), bad)
	if !errors.Is(err, textindex.ErrMissingLinkID) {
		t.Fatalf("ProcessBatch(page without LinkID): err = %v, want ErrMissingLinkID", err)
	}
	if _, err := ix.FindByID(bad[0].(*Payload).LinkID); !errors.Is(err, textindex.ErrNotFound) {
		t.Fatalf("page of a failed batch: FindByID err = %v, want ErrNotFound", err)
	}
}

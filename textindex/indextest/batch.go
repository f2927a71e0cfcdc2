package indextest

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

// batchTests are the subtests of textindex.BatchIndexer; Run skips them
// for a backend that does not implement it.
var batchTests = []struct {
	name string
	fn   func(t *testing.T, idx textindex.Indexer, bi textindex.BatchIndexer)
}{
	{"BatchIndex", testBatchIndex},
	{"BatchDuplicates", testBatchDuplicates},
	{"BatchKeepsScores", testBatchKeepsScores},
	{"BatchEmpty", testBatchEmpty},
	{"BatchInvalid", testBatchInvalid},
	{"BatchConcurrent", testBatchConcurrent},
	{"BatchAfterClose", testBatchAfterClose},
}

func mustBatch(t *testing.T, bi textindex.BatchIndexer, docs ...*textindex.Document) {
	t.Helper()
	if err := bi.IndexBatch(docs); err != nil {
		t.Fatalf("IndexBatch(%d documents): %v", len(docs), err)
	}
}

func mustFind(t *testing.T, idx textindex.Indexer, want *textindex.Document) {
	t.Helper()
	got, err := idx.FindByID(want.LinkID)
	if err != nil {
		t.Fatalf("FindByID(%s): %v", want.LinkID, err)
	}
	sameDoc(t, got, want)
}

func testBatchIndex(t *testing.T, idx textindex.Indexer, bi textindex.BatchIndexer) {
	a := newDoc("alpha", "batched otter text")
	a.PageRank = 0.5 // no score known yet, so this one is kept
	b := newDoc("beta", "batched heron text")
	c := newDoc("gamma", "")
	mustBatch(t, bi, a, b, c)
	for _, d := range []*textindex.Document{a, b, c} {
		mustFind(t, idx, d)
	}
	wantIDs(t, idx, match("batched"), a, b)
	wantIDs(t, idx, phrase("heron text"), b)
	// The batch mixes with single writes.
	d := newDoc("delta", "batched lone text")
	mustIndex(t, idx, d)
	wantIDs(t, idx, match("batched text"), a, b, d)
}

func testBatchDuplicates(t *testing.T, idx textindex.Indexer, bi textindex.BatchIndexer) {
	old := newDoc("old", "stale walrus words")
	mustIndex(t, idx, old)

	// A document indexed before and replaced twice in one batch, and a new
	// one given twice: the last copy of each wins.
	first := *old
	first.Content = "interim narwhal words"
	last := *old
	last.Title, last.Content, last.URL = "new", "final dugong words", old.URL+"/moved"
	fresh1 := newDoc("fresh", "early manatee words")
	fresh2 := *fresh1
	fresh2.Content = "later beluga words"
	other := newDoc("other", "plain words")
	mustBatch(t, bi, &first, fresh1, other, &last, &fresh2)

	mustFind(t, idx, &last)
	mustFind(t, idx, &fresh2)
	mustFind(t, idx, other)
	for _, gone := range []string{"walrus", "narwhal", "manatee"} {
		wantIDs(t, idx, match(gone))
	}
	wantIDs(t, idx, match("dugong"), &last)
	wantIDs(t, idx, match("beluga"), &fresh2)
	wantIDs(t, idx, match("words"), &last, &fresh2, other)
}

func testBatchKeepsScores(t *testing.T, idx textindex.Indexer, bi textindex.BatchIndexer) {
	scored := newDoc("scored", "ranked page")
	mustIndex(t, idx, scored)
	if err := idx.UpdateScore(scored.LinkID, 0.6); err != nil {
		t.Fatalf("UpdateScore: %v", err)
	}
	placeholder := uuid.New()
	if err := idx.UpdateScore(placeholder, 0.7); err != nil {
		t.Fatalf("UpdateScore(unknown): %v", err)
	}

	repl := *scored
	repl.Content = "ranked page again"
	repl.PageRank = 0.1 // ignored: the index holds a score
	late := newDoc("late", "ranked page at last")
	late.LinkID = placeholder
	late.PageRank = 0.2 // ignored: the placeholder's score wins
	fresh := newDoc("fresh", "ranked newcomer")
	fresh.PageRank = 0.3 // kept: no score known
	mustBatch(t, bi, &repl, late, fresh)

	want := repl
	want.PageRank = 0.6
	mustFind(t, idx, &want)
	wantLate := *late
	wantLate.PageRank = 0.7
	mustFind(t, idx, &wantLate)
	mustFind(t, idx, fresh)
	wantIDs(t, idx, match("ranked"), &repl, late, fresh)
}

func testBatchEmpty(t *testing.T, idx textindex.Indexer, bi textindex.BatchIndexer) {
	doc := newDoc("bystander", "quiet page")
	mustIndex(t, idx, doc)
	for _, docs := range [][]*textindex.Document{nil, {}} {
		if err := bi.IndexBatch(docs); err != nil {
			t.Fatalf("IndexBatch(%v): %v", docs, err)
		}
	}
	wantIDs(t, idx, match("quiet"), doc)
}

func testBatchInvalid(t *testing.T, idx textindex.Indexer, bi textindex.BatchIndexer) {
	kept := newDoc("kept", "untouched llama text")
	mustIndex(t, idx, kept)
	noID := newDoc("no id", "refused text")
	noID.LinkID = uuid.Nil
	badScore := newDoc("bad score", "refused text")
	badScore.PageRank = math.NaN()
	cases := []struct {
		name string
		bad  *textindex.Document
		want error
	}{
		{"missing LinkID", noID, textindex.ErrMissingLinkID},
		{"nil document", nil, textindex.ErrMissingLinkID},
		{"non-finite PageRank", badScore, textindex.ErrInvalidScore},
	}
	for _, tc := range cases {
		// Valid documents around the bad one, one of them replacing an
		// indexed document: all or nothing means none is written.
		good := newDoc("good", "refused text")
		repl := *kept
		repl.Content = "refused text"
		err := bi.IndexBatch([]*textindex.Document{good, tc.bad, &repl})
		wantErr(t, "IndexBatch("+tc.name+")", err, tc.want)
		_, err = idx.FindByID(good.LinkID)
		wantErr(t, "FindByID(document of a refused batch)", err, textindex.ErrNotFound)
	}
	mustFind(t, idx, kept)
	wantIDs(t, idx, match("refused"))
	wantIDs(t, idx, match("llama"), kept)
}

func testBatchConcurrent(t *testing.T, idx textindex.Indexer, bi textindex.BatchIndexer) {
	const writers, batches, size = 4, 5, 7
	docs := make([][]*textindex.Document, writers*batches)
	for n := range docs {
		for k := range size {
			docs[n] = append(docs[n], newDoc(fmt.Sprintf("doc %d.%d", n, k), "concurrent batch text"))
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers*batches)
	for w := range writers {
		wg.Go(func() {
			for n := w; n < len(docs); n += writers {
				// Single Index calls interleave with the batches.
				if n%3 == 0 {
					for _, d := range docs[n] {
						if err := idx.Index(d); err != nil {
							errs <- err
						}
					}
					continue
				}
				if err := bi.IndexBatch(docs[n]); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent indexing: %v", err)
	}
	var all []*textindex.Document
	for _, batch := range docs {
		all = append(all, batch...)
	}
	wantIDs(t, idx, match("concurrent"), all...)
}

func testBatchAfterClose(t *testing.T, idx textindex.Indexer, bi textindex.BatchIndexer) {
	if err := idx.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	wantErr(t, "IndexBatch after Close", bi.IndexBatch([]*textindex.Document{newDoc("late", "late")}), textindex.ErrClosed)
}

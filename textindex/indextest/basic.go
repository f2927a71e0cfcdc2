package indextest

import (
	"math"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

func testIndexAndFind(t *testing.T, idx textindex.Indexer) {
	doc := newDoc("A title", "Some content about gophers.")
	doc.PageRank = 0.25 // no score known yet, so this one is kept
	mustIndex(t, idx, doc)
	got, err := idx.FindByID(doc.LinkID)
	if err != nil {
		t.Fatalf("FindByID: %v", err)
	}
	sameDoc(t, got, doc)
}

// testIndexedAtMicroseconds: every backend keeps IndexedAt to the
// microsecond, in UTC.
func testIndexedAtMicroseconds(t *testing.T, idx textindex.Indexer) {
	doc := newDoc("Precise", "time")
	doc.IndexedAt = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.FixedZone("CET", 3600))
	mustIndex(t, idx, doc)
	got, err := idx.FindByID(doc.LinkID)
	if err != nil {
		t.Fatalf("FindByID: %v", err)
	}
	want := time.Date(2025, 3, 14, 14, 9, 26, 535897000, time.UTC)
	if !got.IndexedAt.Equal(want) || got.IndexedAt.Location() != time.UTC {
		t.Fatalf("IndexedAt = %v, want %v", got.IndexedAt, want)
	}
}

func testFindUnknown(t *testing.T, idx textindex.Indexer) {
	mustIndex(t, idx, newDoc("other", "other"))
	_, err := idx.FindByID(uuid.New())
	wantErr(t, "FindByID(unknown)", err, textindex.ErrNotFound)
}

func testMissingLinkID(t *testing.T, idx textindex.Indexer) {
	doc := newDoc("no id", "no id")
	doc.LinkID = uuid.Nil
	wantErr(t, "Index(no LinkID)", idx.Index(doc), textindex.ErrMissingLinkID)
	wantErr(t, "Index(nil)", idx.Index(nil), textindex.ErrMissingLinkID)
	wantErr(t, "UpdateScore(no LinkID)", idx.UpdateScore(uuid.Nil, 1), textindex.ErrMissingLinkID)
}

func testInvalidScore(t *testing.T, idx textindex.Indexer) {
	doc := newDoc("score", "score")
	mustIndex(t, idx, doc)
	for _, s := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		wantErr(t, "UpdateScore(non-finite)", idx.UpdateScore(doc.LinkID, s), textindex.ErrInvalidScore)
		bad := newDoc("bad", "bad")
		bad.PageRank = s
		wantErr(t, "Index(non-finite PageRank)", idx.Index(bad), textindex.ErrInvalidScore)
	}
}

func testReplace(t *testing.T, idx textindex.Indexer) {
	doc := newDoc("first title", "original walrus text")
	mustIndex(t, idx, doc)
	if err := idx.UpdateScore(doc.LinkID, 0.5); err != nil {
		t.Fatalf("UpdateScore: %v", err)
	}
	repl := *doc
	repl.Title = "second title"
	repl.Content = "replacement narwhal text"
	repl.URL = doc.URL + "/moved"
	repl.IndexedAt = doc.IndexedAt.Add(1e9)
	repl.PageRank = 0.9 // must be ignored: the index already has a score
	mustIndex(t, idx, &repl)

	got, err := idx.FindByID(doc.LinkID)
	if err != nil {
		t.Fatalf("FindByID: %v", err)
	}
	want := repl
	want.PageRank = 0.5
	sameDoc(t, got, &want)

	wantIDs(t, idx, match("walrus"))
	wantIDs(t, idx, match("first"))
	wantIDs(t, idx, match("narwhal"), &repl)
	wantIDs(t, idx, match("text"), &repl) // replaced, not duplicated
}

func testCopies(t *testing.T, idx textindex.Indexer) {
	doc := newDoc("copy", "copy semantics")
	mustIndex(t, idx, doc)
	orig := *doc
	doc.Content = "changed after indexing"

	got, err := idx.FindByID(orig.LinkID)
	if err != nil {
		t.Fatalf("FindByID: %v", err)
	}
	sameDoc(t, got, &orig)
	got.Title = "scribbled"
	res, _ := search(t, idx, match("copy"))
	if len(res) != 1 {
		t.Fatalf("got %d results, want 1", len(res))
	}
	sameDoc(t, res[0], &orig)
	res[0].Title = "scribbled"
	again, err := idx.FindByID(orig.LinkID)
	if err != nil {
		t.Fatalf("FindByID: %v", err)
	}
	sameDoc(t, again, &orig)
}

func testUnknownQueryType(t *testing.T, idx textindex.Indexer) {
	mustIndex(t, idx, newDoc("x", "x"))
	it, err := idx.Search(textindex.Query{Type: 99, Expression: "x"})
	if err == nil {
		it.Close()
	}
	wantErr(t, "Search(type 99)", err, textindex.ErrUnknownQueryType)
}

func testUpdateScoreUnknown(t *testing.T, idx textindex.Indexer) {
	other := newDoc("bystander", "ghost story")
	mustIndex(t, idx, other)
	id := uuid.New()
	if err := idx.UpdateScore(id, 0.75); err != nil {
		t.Fatalf("UpdateScore(unknown): %v", err)
	}
	_, err := idx.FindByID(id)
	wantErr(t, "FindByID(placeholder)", err, textindex.ErrNotFound)
	wantIDs(t, idx, match("ghost"), other)

	// The placeholder can be updated again before the page arrives.
	if err := idx.UpdateScore(id, 0.8); err != nil {
		t.Fatalf("UpdateScore(unknown, again): %v", err)
	}
	doc := newDoc("late", "ghost arrived late")
	doc.LinkID = id
	doc.PageRank = 0.1 // ignored: the placeholder's score wins
	mustIndex(t, idx, doc)
	got, err := idx.FindByID(id)
	if err != nil {
		t.Fatalf("FindByID: %v", err)
	}
	want := *doc
	want.PageRank = 0.8
	sameDoc(t, got, &want)
	wantIDs(t, idx, match("ghost"), other, doc)
}

func testUpdateScoreIndexed(t *testing.T, idx textindex.Indexer) {
	doc := newDoc("scored", "scored page")
	mustIndex(t, idx, doc)
	if err := idx.UpdateScore(doc.LinkID, 0.125); err != nil {
		t.Fatalf("UpdateScore: %v", err)
	}
	got, err := idx.FindByID(doc.LinkID)
	if err != nil {
		t.Fatalf("FindByID: %v", err)
	}
	if got.PageRank != 0.125 {
		t.Fatalf("PageRank = %v, want 0.125", got.PageRank)
	}
	res, _ := search(t, idx, match("scored"))
	if len(res) != 1 || res[0].PageRank != 0.125 {
		t.Fatalf("search result = %v, want the document with PageRank 0.125", res)
	}
}

func testIteratorClose(t *testing.T, idx textindex.Indexer) {
	for range 5 {
		mustIndex(t, idx, newDoc("closing", "closing time"))
	}
	it, err := idx.Search(match("closing"))
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	if !it.Next() {
		t.Fatalf("Next = false, want a document (err %v)", it.Error())
	}
	if err := it.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := it.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if it.Next() {
		t.Fatal("Next after Close = true, want false")
	}
	if it.TotalCount() != 5 {
		t.Fatalf("TotalCount after Close = %d, want 5", it.TotalCount())
	}
}

func testUseAfterClose(t *testing.T, idx textindex.Indexer) {
	doc := newDoc("closed", "closed index")
	mustIndex(t, idx, doc)
	if err := idx.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	_, err := idx.FindByID(doc.LinkID)
	wantErr(t, "FindByID after Close", err, textindex.ErrClosed)
	wantErr(t, "Index after Close", idx.Index(newDoc("late", "late")), textindex.ErrClosed)
	wantErr(t, "UpdateScore after Close", idx.UpdateScore(doc.LinkID, 1), textindex.ErrClosed)
	it, err := idx.Search(match("closed"))
	if err == nil {
		it.Close()
	}
	wantErr(t, "Search after Close", err, textindex.ErrClosed)
}

// batchScorer is UpdateScores, which an index may offer beside
// UpdateScore for a ranking job's many scores.
type batchScorer interface {
	UpdateScores(ids []uuid.UUID, scores []float64) error
}

// testUpdateScores: UpdateScores sets the score of indexed documents and
// records it for those not indexed yet, as UpdateScore does for each, and
// a bad argument writes nothing.
func testUpdateScores(t *testing.T, idx textindex.Indexer) {
	bs, ok := idx.(batchScorer)
	if !ok {
		t.Skip("the index has no UpdateScores")
	}
	a, b := newDoc("A", "alpha"), newDoc("B", "beta")
	mustIndex(t, idx, a, b)
	later := uuid.New()
	if err := bs.UpdateScores([]uuid.UUID{a.LinkID, later, b.LinkID, a.LinkID}, []float64{0.1, 0.3, 0.2, 0.4}); err != nil {
		t.Fatalf("UpdateScores: %v", err)
	}
	for id, want := range map[uuid.UUID]float64{a.LinkID: 0.4, b.LinkID: 0.2} {
		got, err := idx.FindByID(id)
		if err != nil || got.PageRank != want {
			t.Errorf("after UpdateScores: %v, %v; want PageRank %v", got, err, want)
		}
	}
	c := newDoc("C", "gamma")
	c.LinkID = later
	mustIndex(t, idx, c)
	if got, err := idx.FindByID(later); err != nil || got.PageRank != 0.3 {
		t.Errorf("a document indexed after its score: %v, %v; want PageRank 0.3", got, err)
	}
	err := bs.UpdateScores([]uuid.UUID{b.LinkID, uuid.Nil}, []float64{0.9, 0.9})
	wantErr(t, "UpdateScores with a nil ID", err, textindex.ErrMissingLinkID)
	err = bs.UpdateScores([]uuid.UUID{b.LinkID}, []float64{math.NaN()})
	wantErr(t, "UpdateScores with NaN", err, textindex.ErrInvalidScore)
	if got, _ := idx.FindByID(b.LinkID); got == nil || got.PageRank != 0.2 {
		t.Errorf("a failed UpdateScores changed a score: %v", got)
	}
}

// Package indextest is the conformance suite every textindex backend runs,
// plus the shared benchmarks, so that all backends are held to one
// behaviour and measured the same way.
//
// A backend's tests call Run with a constructor that returns an empty index
// for each subtest:
//
//	func TestConformance(t *testing.T) {
//		indextest.Run(t, func(t *testing.T) textindex.Indexer {
//			idx := memory.New()
//			t.Cleanup(func() { idx.Close() })
//			return idx
//		})
//	}
package indextest

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

// NewFunc returns a new, empty index. It should register the index's Close
// with t.Cleanup; Close must tolerate being called twice, since one subtest
// closes the index itself.
type NewFunc func(t *testing.T) textindex.Indexer

// Run runs the conformance suite against the backend newIndexer creates.
// Each subtest gets its own empty index; subtests run one after another, so
// a backend may reuse one store and empty it in newIndexer.
func Run(t *testing.T, newIndexer NewFunc) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, idx textindex.Indexer)
	}{
		{"IndexAndFind", testIndexAndFind},
		{"IndexedAtMicroseconds", testIndexedAtMicroseconds},
		{"LongQueryIsBounded", testLongQueryIsBounded},
		{"ScoresExplained", testScoresExplained},
		{"FindUnknown", testFindUnknown},
		{"MissingLinkID", testMissingLinkID},
		{"InvalidScore", testInvalidScore},
		{"Replace", testReplace},
		{"Copies", testCopies},
		{"Match", testMatch},
		{"Phrase", testPhrase},
		{"CaseInsensitive", testCaseInsensitive},
		{"UnknownQueryType", testUnknownQueryType},
		{"NoTerms", testNoTerms},
		{"SearchHonoursContext", testSearchHonoursContext},
		{"SearchSyntax", testSearchSyntax},
		{"SearchSitePorts", testSearchSitePorts},
		{"SearchSyntaxIsBounded", testSearchSyntaxIsBounded},
		{"SnippetsMarkMatches", testSnippetsMarkMatches},
		{"Count", testCount},
		{"UpdateScores", testUpdateScores},
		{"QuerySyntaxIsText", testQuerySyntaxIsText},
		{"Paging", testPaging},
		{"PageRankOrder", testPageRankOrder},
		{"RelevanceOrder", testRelevanceOrder},
		{"FieldWeights", testFieldWeights},
		{"Headings", testHeadings},
		{"WordForms", testWordForms},
		{"URLsOnly", testURLsOnly},
		{"PriorOrdersCloseScores", testPriorOrdersCloseScores},
		{"JudgedOrder", testJudgedOrder},
		{"AnchorText", testAnchorText},
		{"AnchorsKeptOnCancel", testAnchorsKeptOnCancel},
		{"UpdateScoreUnknown", testUpdateScoreUnknown},
		{"UpdateScoreIndexed", testUpdateScoreIndexed},
		{"NonASCII", testNonASCII},
		{"WordsSplitAlike", testWordsSplitAlike},
		{"EmptyDocument", testEmptyDocument},
		{"HugeDocument", testHugeDocument},
		{"UnusualBytes", testUnusualBytes},
		{"ConcurrentIndexing", testConcurrentIndexing},
		{"ConcurrentReplace", testConcurrentReplace},
		{"IteratorClose", testIteratorClose},
		{"UseAfterClose", testUseAfterClose},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, newIndexer(t))
		})
	}
	for _, tc := range dedupTests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, newIndexer(t))
		})
	}
	for _, tc := range batchTests {
		t.Run(tc.name, func(t *testing.T) {
			idx := newIndexer(t)
			bi, ok := idx.(textindex.BatchIndexer)
			if !ok {
				t.Skip("the backend does not implement textindex.BatchIndexer")
			}
			tc.fn(t, idx, bi)
		})
	}
}

// newDoc returns a document with a fresh LinkID and a timestamp every
// backend can store exactly (microseconds, UTC).
func newDoc(title, content string) *textindex.Document {
	return &textindex.Document{
		LinkID:    uuid.New(),
		URL:       "https://example.com/" + uuid.NewString(),
		Title:     title,
		Content:   content,
		IndexedAt: time.Now().UTC().Truncate(time.Microsecond),
	}
}

func mustIndex(t *testing.T, idx textindex.Indexer, docs ...*textindex.Document) {
	t.Helper()
	for _, d := range docs {
		if err := idx.Index(d); err != nil {
			t.Fatalf("Index(%s): %v", d.LinkID, err)
		}
	}
}

// search runs a query and drains the iterator, returning the documents in
// order and the reported total.
func search(t *testing.T, idx textindex.Indexer, q textindex.Query) ([]*textindex.Document, uint64) {
	t.Helper()
	it, err := idx.Search(q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	var docs []*textindex.Document
	for it.Next() {
		docs = append(docs, it.Document())
	}
	if err := it.Error(); err != nil {
		t.Fatalf("Search(%+v): iterating: %v", q, err)
	}
	total := it.TotalCount()
	if err := it.Close(); err != nil {
		t.Fatalf("Search(%+v): Close: %v", q, err)
	}
	return docs, total
}

func match(expr string) textindex.Query {
	return textindex.Query{Type: textindex.QueryTypeMatch, Expression: expr}
}

func phrase(expr string) textindex.Query {
	return textindex.Query{Type: textindex.QueryTypePhrase, Expression: expr}
}

// ids returns the LinkIDs of docs in order.
func ids(docs []*textindex.Document) []uuid.UUID {
	out := make([]uuid.UUID, len(docs))
	for i, d := range docs {
		out[i] = d.LinkID
	}
	return out
}

// wantIDs fails unless the search returns exactly want, in any order.
func wantIDs(t *testing.T, idx textindex.Indexer, q textindex.Query, want ...*textindex.Document) {
	t.Helper()
	got, total := search(t, idx, q)
	if total != uint64(len(want)) || len(got) != len(want) {
		t.Fatalf("Search(%q, %v): got %d docs (TotalCount %d), want %d", q.Expression, q.Type, len(got), total, len(want))
	}
	set := make(map[uuid.UUID]bool)
	for _, d := range got {
		set[d.LinkID] = true
	}
	for _, w := range want {
		if !set[w.LinkID] {
			t.Fatalf("Search(%q, %v): document %q missing from results", q.Expression, q.Type, w.Title)
		}
	}
}

func sameDoc(t *testing.T, got, want *textindex.Document) {
	t.Helper()
	if got.LinkID != want.LinkID || got.URL != want.URL || got.Title != want.Title ||
		got.Content != want.Content || got.Headings != want.Headings || !got.IndexedAt.Equal(want.IndexedAt) || got.PageRank != want.PageRank {
		t.Fatalf("document mismatch:\n got %s %q %q %q (%d bytes) %v %v\nwant %s %q %q %q (%d bytes) %v %v",
			got.LinkID, got.URL, got.Title, got.Headings, len(got.Content), got.IndexedAt, got.PageRank,
			want.LinkID, want.URL, want.Title, want.Headings, len(want.Content), want.IndexedAt, want.PageRank)
	}
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v, want %v", what, err, target)
	}
}

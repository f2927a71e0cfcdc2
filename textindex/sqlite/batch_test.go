package sqlite

import (
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

// A batch larger than one docs_fts insert takes (maxParams/2 rows) is
// split over several statements, all in its one transaction.
func TestIndexBatchOverOneStatement(t *testing.T) {
	idx := openTest(t)
	n := maxParams/2 + 3
	docs := make([]*textindex.Document, n)
	for i := range docs {
		docs[i] = &textindex.Document{LinkID: uuid.New(), Title: fmt.Sprintf("page %d", i), Content: "bulk"}
	}
	if err := idx.IndexBatch(docs); err != nil {
		t.Fatalf("IndexBatch(%d documents): %v", n, err)
	}
	if got := count(t, idx, "bulk"); got != uint64(n) {
		t.Fatalf("%d documents match, want %d", got, n)
	}
	last, err := idx.FindByID(docs[n-1].LinkID)
	if err != nil || last.Title != docs[n-1].Title {
		t.Fatalf("FindByID(last) = %+v, %v", last, err)
	}
	if got := count(t, idx, fmt.Sprintf("page %d", n-1)); got != 1 {
		t.Fatalf("the last document's title matches %d documents, want 1", got)
	}
}

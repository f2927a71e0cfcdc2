package memory

import (
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

// TestCompaction replaces documents often enough to trigger compaction
// several times and checks that searches and scores survive it.
func TestCompaction(t *testing.T) {
	idx := New()
	defer idx.Close()
	ids := make([]uuid.UUID, 10)
	for n := range ids {
		ids[n] = uuid.New()
	}
	const rounds = 400
	for r := range rounds {
		for n, id := range ids {
			doc := &textindex.Document{LinkID: id, Content: fmt.Sprintf("stable round%d doc%d", r, n)}
			if err := idx.Index(doc); err != nil {
				t.Fatalf("Index: %v", err)
			}
			if r == 0 {
				if err := idx.UpdateScore(id, float64(n)/100); err != nil {
					t.Fatalf("UpdateScore: %v", err)
				}
			}
		}
	}
	if len(idx.byOrd) >= rounds*len(ids) || idx.dead > len(idx.docs)+1024 {
		t.Fatalf("no compaction: %d ordinals, %d dead", len(idx.byOrd), idx.dead)
	}
	it, err := idx.Search(textindex.Query{Expression: "stable"})
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	defer it.Close()
	var n int
	for it.Next() {
		d := it.Document()
		if want := float64(len(ids)-1-n) / 100; d.PageRank != want {
			t.Fatalf("result %d has PageRank %v, want %v", n, d.PageRank, want)
		}
		n++
	}
	if n != len(ids) || it.TotalCount() != uint64(len(ids)) {
		t.Fatalf("got %d results, TotalCount %d, want %d", n, it.TotalCount(), len(ids))
	}
	for _, expr := range []string{"round0", fmt.Sprintf("round%d", rounds-2)} {
		it, err := idx.Search(textindex.Query{Expression: expr})
		if err != nil {
			t.Fatalf("Search: %v", err)
		}
		if it.TotalCount() != 0 {
			t.Fatalf("Search(%q) found %d replaced versions", expr, it.TotalCount())
		}
		it.Close()
	}
	if got := idx.df[idx.termIDs["stable"]]; got != len(ids) {
		t.Fatalf("document frequency of a term in every document = %d, want %d", got, len(ids))
	}
}

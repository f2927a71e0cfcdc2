package pager

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"github.com/linksrus/linksrus/textindex"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// results returns a fetch over n documents that records the page sizes
// asked for.
func results(n int, sizes *[]int) FetchFunc {
	docs := make([]*textindex.Document, n)
	for i := range docs {
		docs[i] = &textindex.Document{LinkID: uuid.New(), Title: string(rune('a' + i%26))}
	}
	return func(offset uint64, limit int) ([]*textindex.Document, error) {
		*sizes = append(*sizes, limit)
		end := min(int(offset)+limit, n)
		if int(offset) >= end {
			return nil, nil
		}
		return docs[offset:end], nil
	}
}

func TestWalksEveryResultWithGrowingPages(t *testing.T) {
	var sizes []int
	const n = 1000
	it := New(textindex.Query{}, n, results(n, &sizes))
	count := 0
	for it.Next() {
		d := it.Document()
		d.Title = "changed" // a copy: the next read must not see it
		count++
	}
	if err := it.Error(); err != nil || count != n || it.TotalCount() != n {
		t.Fatalf("read %d of %d (total %d), err %v", count, n, it.TotalCount(), err)
	}
	if want := []int{64, 128, 256, 512, 1024}; !slices.Equal(sizes, want) {
		t.Fatalf("page sizes %v, want %v (stop once total is reached)", sizes, want)
	}
}

// A facet's walk over URLs only ranks the hits once for its first 500.
func TestURLsOnlyStartWithALargePage(t *testing.T) {
	var sizes []int
	it := New(textindex.Query{URLsOnly: true}, 3000, results(3000, &sizes))
	for n := 0; n < 500 && it.Next(); n++ {
	}
	if want := []int{FirstURLsBatch}; !slices.Equal(sizes, want) {
		t.Fatalf("page sizes %v, want %v", sizes, want)
	}
}

func TestOffsetAndEmptySearches(t *testing.T) {
	var sizes []int
	it := New(textindex.Query{Offset: 7}, 10, results(10, &sizes))
	count := 0
	for it.Next() {
		count++
	}
	if count != 3 {
		t.Fatalf("read %d results after offset 7 of 10, want 3", count)
	}
	for _, it := range []*Iterator{New(textindex.Query{Offset: 10}, 10, results(10, &sizes)), New(textindex.Query{}, 0, nil), New(textindex.Query{}, 5, nil)} {
		if it.Next() || it.Document() != nil {
			t.Fatal("an empty search yielded a result")
		}
	}
}

func TestFetchErrorStopsIteration(t *testing.T) {
	boom := errors.New("boom")
	it := New(textindex.Query{}, 100, func(uint64, int) ([]*textindex.Document, error) { return nil, boom })
	if it.Next() || !errors.Is(it.Error(), boom) {
		t.Fatalf("Next after a failed fetch: error %v, want boom", it.Error())
	}
	if err := it.Close(); err != nil || it.Next() {
		t.Fatal("Close or Next after Close misbehaved")
	}
}

// An iterator started with its first page read (Started) returns that
// page, then fetches from after it as New's would, and fetches nothing
// when the first page held every result.
func TestStartedWithTheFirstPage(t *testing.T) {
	for _, tc := range []struct {
		name      string
		q         textindex.Query
		n         int
		wantSizes []int // asked of fetch after the first page
	}{
		{"more results", textindex.Query{}, 1000, []int{128, 256, 512, 1024}},
		{"one page", textindex.Query{}, 40, nil},
		{"after an offset", textindex.Query{Offset: 990}, 1000, nil},
		{"URLs only", textindex.Query{URLsOnly: true}, 600, []int{1024}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sizes []int
			fetch := results(tc.n, &sizes)
			first, _ := fetch(tc.q.Offset, FirstSize(tc.q))
			sizes = nil
			it := Started(tc.q, uint64(tc.n), first, fetch)
			var got []*textindex.Document
			for it.Next() {
				got = append(got, it.Document())
			}
			if want := tc.n - int(tc.q.Offset); it.Error() != nil || len(got) != want {
				t.Fatalf("read %d results, want %d (err %v)", len(got), want, it.Error())
			}
			if len(first) > 0 && got[0].LinkID != first[0].LinkID {
				t.Fatal("the first result is not the first page's")
			}
			if !slices.Equal(sizes, tc.wantSizes) {
				t.Fatalf("fetched pages of %v after the first, want %v", sizes, tc.wantSizes)
			}
		})
	}
	// No hits: the (empty) first page ends the iteration.
	if it := Started(textindex.Query{}, 0, nil, func(uint64, int) ([]*textindex.Document, error) {
		t.Fatal("fetched a search without hits")
		return nil, nil
	}); it.Next() {
		t.Fatal("a search without hits yielded a result")
	}
}

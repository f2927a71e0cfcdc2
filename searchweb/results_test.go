package searchweb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/searchweb"
	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/memory"
)

func indexOf(t testing.TB, docs []*textindex.Document) *memory.Index {
	t.Helper()
	idx := memory.New()
	for _, d := range docs {
		if d.LinkID == uuid.Nil {
			d.LinkID = uuid.New()
		}
		if err := idx.Index(d); err != nil {
			t.Fatal(err)
		}
	}
	return idx
}

// TestResultsPaging: going from page to page with Next shows every
// result once, each page but the last full; page n is the page Next
// reaches after n-1 pages; past the last page there are no results.
func TestResultsPaging(t *testing.T) {
	ctx := context.Background()
	idx := indexOf(t, releaseNotes(4, 3, 7))
	q := textindex.Query{Type: textindex.QueryTypeSearch, Expression: "crawler"}
	for limit := 1; limit <= 5; limit++ {
		seen := map[uint64]int{}
		var chain []searchweb.Page
		folded := 0
		for offset := uint64(0); ; {
			q.Offset = offset
			p, err := searchweb.Results(ctx, idx, q, searchweb.PageOptions{Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			if p.Offset != offset || p.Number != 1 || p.Total != 19 {
				t.Fatalf("limit %d, offset %d: page %+v", limit, offset, p)
			}
			var read uint64
			for _, r := range p.Results {
				seen[r.Rank]++
				read++
				if len(r.Snippet) == 0 {
					t.Errorf("limit %d: result %d has no snippet", limit, r.Rank)
				}
				for _, n := range r.NearDuplicates {
					seen[n.Rank]++
					read++
					folded++
				}
			}
			if read != p.Read {
				t.Errorf("limit %d, offset %d: Read %d, but %d results and near-duplicates", limit, offset, p.Read, read)
			}
			chain = append(chain, p)
			if !p.More {
				break
			}
			if len(p.Results) != limit || p.KnownPages != 2 {
				t.Errorf("limit %d, offset %d: %d results shown, KnownPages %d; want a full page and 2", limit, offset, len(p.Results), p.KnownPages)
			}
			offset = p.Next()
		}
		// Four texts among the first twelve results: a page of five
		// folds some.
		if limit == 5 && folded == 0 {
			t.Fatalf("limit %d: nothing folded: the test shows nothing", limit)
		}
		for rank := uint64(1); rank <= 19; rank++ {
			if seen[rank] != 1 {
				t.Errorf("limit %d: result %d shown %d times, want once", limit, rank, seen[rank])
			}
		}

		q.Offset = 0
		for n, want := range chain {
			p, err := searchweb.Results(ctx, idx, q, searchweb.PageOptions{Limit: limit, Number: n + 1})
			if err != nil {
				t.Fatal(err)
			}
			if p.Offset != want.Offset || p.Read != want.Read || fmt.Sprint(ranks(p)) != fmt.Sprint(ranks(want)) {
				t.Errorf("limit %d: page %d starts at %d and reads %d %v; Next reaches it at %d, reading %d %v",
					limit, n+1, p.Offset, p.Read, ranks(p), want.Offset, want.Read, ranks(want))
			}
			if wantKnown := min(n+2, len(chain)); p.KnownPages != wantKnown || p.More != (n+1 < len(chain)) {
				t.Errorf("limit %d: page %d of %d: KnownPages %d, More %v", limit, n+1, len(chain), p.KnownPages, p.More)
			}
		}
		for _, past := range []int{len(chain) + 1, len(chain) + 7} {
			p, err := searchweb.Results(ctx, idx, q, searchweb.PageOptions{Limit: limit, Number: past})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Results) != 0 || p.More || p.KnownPages != len(chain) || p.Total != 19 {
				t.Errorf("limit %d: page %d past the last (%d): %+v", limit, past, len(chain), p)
			}
		}
	}
}

// ranks are the ranks a page shows, near-duplicates in brackets.
func ranks(p searchweb.Page) []string {
	var out []string
	for _, r := range p.Results {
		s := fmt.Sprint(r.Rank)
		for _, n := range r.NearDuplicates {
			s += fmt.Sprintf("[%d]", n.Rank)
		}
		out = append(out, s)
	}
	return out
}

// TestResultsReadBounded: a page whose results are all one text reads at
// most five results per place, showing fewer than Limit, and the next
// page goes on from there.
func TestResultsReadBounded(t *testing.T) {
	idx := indexOf(t, releaseNotes(1, 30, 0))
	q := textindex.Query{Type: textindex.QueryTypeSearch, Expression: "crawler"}
	p, err := searchweb.Results(context.Background(), idx, q, searchweb.PageOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Results) != 1 || len(p.Results[0].NearDuplicates) != 9 || p.Read != 10 || p.Next() != 10 || !p.More {
		t.Fatalf("page %+v: want one result with 9 near-duplicates, 10 read", p)
	}
	p, err = searchweb.Results(context.Background(), idx, q, searchweb.PageOptions{Limit: 2, Number: 3})
	if err != nil {
		t.Fatal(err)
	}
	if p.Offset != 20 || p.Read != 10 || p.More || p.KnownPages != 3 || p.Results[0].Rank != 21 {
		t.Fatalf("page 3 %+v: want ranks 21-30, the last page", p)
	}
}

func TestResultsBadOptions(t *testing.T) {
	idx := indexOf(t, releaseNotes(1, 1, 1))
	q := textindex.Query{Type: textindex.QueryTypeSearch, Expression: "crawler"}
	for _, o := range []searchweb.PageOptions{{Limit: -1}, {Number: -1}, {SnippetWidth: -1}} {
		if _, err := searchweb.Results(context.Background(), idx, q, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	p, err := searchweb.Results(context.Background(), idx, q, searchweb.PageOptions{})
	if err != nil || p.Number != 1 || len(p.Results) != 2 || p.More || p.KnownPages != 1 {
		t.Errorf("zero options: %+v, %v", p, err)
	}
	secret := fmt.Errorf("connection refused")
	if _, err := searchweb.Results(context.Background(), failingIndex{secret}, q, searchweb.PageOptions{}); err == nil || !strings.Contains(err.Error(), "searchweb: results: connection refused") {
		t.Errorf("failing index: %v", err)
	}
}

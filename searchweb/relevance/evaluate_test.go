package relevance_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linksrus/linksrus/searchweb/relevance"
	"github.com/linksrus/linksrus/textindex"
)

// fixedIndex answers each query expression with a fixed list of
// documents, best first, so that the places are known by construction.
type fixedIndex struct {
	results map[string][]*textindex.Document
	block   bool // searches wait for their context to end

	mu   sync.Mutex
	seen []textindex.Query
}

func (f *fixedIndex) SearchContext(ctx context.Context, q textindex.Query) (textindex.Iterator, error) {
	f.mu.Lock()
	f.seen = append(f.seen, q)
	f.mu.Unlock()
	if f.block {
		<-ctx.Done()
		return nil, fmt.Errorf("fixed: %w", ctx.Err())
	}
	docs, ok := f.results[q.Expression]
	if !ok {
		return nil, fmt.Errorf("fixed: no results for %q", q.Expression)
	}
	return &sliceIterator{docs: docs[min(int(q.Offset), len(docs)):], total: uint64(len(docs))}, nil
}

type sliceIterator struct {
	docs  []*textindex.Document
	i     int
	total uint64
}

func (it *sliceIterator) Next() bool                    { it.i++; return it.i <= len(it.docs) }
func (it *sliceIterator) Document() *textindex.Document { d := *it.docs[it.i-1]; return &d }
func (it *sliceIterator) Error() error                  { return nil }
func (it *sliceIterator) Close() error                  { return nil }
func (it *sliceIterator) TotalCount() uint64            { return it.total }

const site = "http://site.test/docs/"

// doc is a page of its own text: no two docs made with different names
// are near-duplicates.
func doc(name string) *textindex.Document {
	words := make([]string, 500)
	for i := range words {
		words[i] = fmt.Sprintf("%s%d", name, i*7919%1000)
	}
	return &textindex.Document{URL: site + name, Title: name, Content: strings.Join(words, " ")}
}

// nearly is a page whose text differs from d's in one word of many: a
// near-duplicate, which a page of results folds under d.
func nearly(d *textindex.Document, name string) *textindex.Document {
	n := *d
	n.URL, n.Content = site+name, d.Content+" extra"
	return &n
}

func TestEvaluatePlaces(t *testing.T) {
	aliased := doc("x.html")
	aliased.AlsoAt = []string{site + "y.html"}
	p := doc("p.html")
	var twelve []*textindex.Document
	for i := range 12 {
		twelve = append(twelve, doc(fmt.Sprintf("d%d.html", i)))
	}
	idx := &fixedIndex{results: map[string][]*textindex.Document{
		"alpha":         {doc("a.html"), doc("b.html"), doc("c.html")},
		"beta":          {aliased, doc("z.html")},
		"gamma":         {p, nearly(p, "q.html"), doc("r.html")},
		"delta":         twelve,
		"epsilon":       {doc("e.html")},
		"zeta":          {doc("f.html"), doc("g.html"), doc("h.html"), doc("i.html")},
		"control chars": {doc("k.html")},
	}}
	set := []relevance.Judgment{
		{Query: "alpha", Pages: []string{"b.html", "c.html"}, Line: 1}, // the first acceptable one counts
		{Query: "beta", Pages: []string{"y.html"}, Line: 2},            // at another URL of the same text
		{Query: "gamma", Pages: []string{"r.html", "q.html"}, Line: 3}, // folded under the first result
		{Query: "delta", Pages: []string{"d10.html"}, Line: 4},         // eleventh: not on the first page
		{Query: "epsilon", Pages: []string{"sub/../e.html#top"}, Line: 5},
		{Query: "zeta", Pages: []string{"/docs/i.html", "elsewhere.html"}, Line: 6},
		{Query: "control\x01chars", Pages: []string{"k.html"}, Line: 7}, // read as the search box reads it
	}
	out, err := relevance.Evaluate(context.Background(), idx, set, relevance.Options{Base: "HTTP://Site.test:80/docs/index.html"})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Place  int
		Found  string
		Folded bool
	}
	want := []got{
		{2, site + "b.html", false},
		{1, site + "y.html", false},
		{1, site + "q.html", true},
		{0, "", false},
		{1, site + "e.html", false},
		{4, site + "i.html", false},
		{1, site + "k.html", false},
	}
	for i, o := range out {
		if g := (got{o.Place, o.Found, o.Folded}); g != want[i] {
			t.Errorf("%q: %+v, want %+v", o.Query, g, want[i])
		}
		if !reflect.DeepEqual(o.Judgment, set[i]) {
			t.Errorf("outcome %d is of %+v, want %+v", i, o.Judgment, set[i])
		}
	}
	if got, want := out[2].Results, []string{site + "p.html", site + "r.html"}; !reflect.DeepEqual(got, want) {
		t.Errorf("gamma's results %v, want %v (q.html folded under p.html)", got, want)
	}
	if len(out[3].Results) != 10 || out[3].Total != 12 {
		t.Errorf("delta: %d results of %d, want the first page, 10 of 12", len(out[3].Results), out[3].Total)
	}
	// By hand: 1/2 + 1 + 1 + 0 + 1 + 1/4 + 1 = 4.75 over 7 queries.
	s := relevance.Summarize(relevance.Places(out))
	if math.Abs(s.MRR10-4.75/7) > 1e-12 || s.Success1 != 4 || s.Success3 != 5 || s.Queries != 7 {
		t.Errorf("scores %+v, want MRR@10 %.4f, success@1 4, success@3 5 of 7", s, 4.75/7)
	}
	for _, q := range idx.seen {
		if q.Type != textindex.QueryTypeSearch || q.Offset != 0 {
			t.Errorf("searched %+v, want the search box's syntax from the first result", q)
		}
	}
}

func TestEvaluateOptionsPageSize(t *testing.T) {
	idx := &fixedIndex{results: map[string][]*textindex.Document{
		"alpha": {doc("a.html"), doc("b.html"), doc("c.html")},
	}}
	set := []relevance.Judgment{{Query: "alpha", Pages: []string{"c.html"}, Line: 1}}
	for size, want := range map[int]int{2: 0, 3: 3} {
		out, err := relevance.Evaluate(context.Background(), idx, set, relevance.Options{Base: site, PageSize: size})
		if err != nil {
			t.Fatal(err)
		}
		if out[0].Place != want {
			t.Errorf("PageSize %d: place %d, want %d", size, out[0].Place, want)
		}
	}
}

// What cannot be measured is an error naming the judged line, found before
// any query runs.
func TestEvaluateErrors(t *testing.T) {
	idx := &fixedIndex{results: map[string][]*textindex.Document{"alpha": {doc("a.html")}}}
	ok := relevance.Judgment{Query: "alpha", Pages: []string{"a.html"}, Line: 1}
	for _, c := range []struct {
		name string
		set  []relevance.Judgment
		opts relevance.Options
		want string
	}{
		{"no base", []relevance.Judgment{ok}, relevance.Options{}, "no Base"},
		{"bad base", []relevance.Judgment{ok}, relevance.Options{Base: "ftp://site.test/"}, "base"},
		{"negative size", []relevance.Judgment{ok}, relevance.Options{Base: site, PageSize: -1}, "negative"},
		{"only narrowing", []relevance.Judgment{ok, {Query: "-alpha site:site.test", Pages: []string{"a.html"}, Line: 9}},
			relevance.Options{Base: site}, "line 9: \"-alpha site:site.test\": The query has no word"},
		{"unresolvable page", []relevance.Judgment{ok, {Query: "beta", Pages: []string{"http://[::1/x.html"}, Line: 4}},
			relevance.Options{Base: site}, "line 4: resolve URL"},
		{"search fails", []relevance.Judgment{ok, {Query: "unknown", Pages: []string{"a.html"}, Line: 5}},
			relevance.Options{Base: site}, "line 5: \"unknown\": searchweb: results: fixed: no results"},
	} {
		t.Run(c.name, func(t *testing.T) {
			idx.seen = nil
			_, err := relevance.Evaluate(context.Background(), idx, c.set, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Evaluate: %v, want an error saying %q", err, c.want)
			}
			if c.name != "search fails" && len(idx.seen) > 0 {
				t.Errorf("searched %d queries before finding the mistake", len(idx.seen))
			}
		})
	}
}

func TestEvaluateTimeout(t *testing.T) {
	idx := &fixedIndex{block: true}
	set := []relevance.Judgment{{Query: "alpha", Pages: []string{"a.html"}, Line: 1}}
	start := time.Now()
	_, err := relevance.Evaluate(context.Background(), idx, set, relevance.Options{Base: site, Timeout: 20 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Evaluate: %v, want a deadline error", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("gave up after %v, want about the timeout", d)
	}
}

package indextest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

// dedupTests pin down duplicate content (see the textindex package
// documentation's Duplicates): one searchable document per ContentHash,
// the canonical chosen by CompareCanonical whatever the order of indexing.
var dedupTests = []struct {
	name string
	fn   func(t *testing.T, idx textindex.Indexer)
}{
	{"DuplicatesAreOneResult", testDuplicatesAreOneResult},
	{"DuplicatesCanonicalIgnoresOrder", testDuplicatesCanonicalIgnoresOrder},
	{"DuplicatesContentChangeLeavesGroup", testDuplicatesContentChangeLeavesGroup},
	{"DuplicatesRedirectIsAlias", testDuplicatesRedirectIsAlias},
	{"DuplicatesWithoutHash", testDuplicatesWithoutHash},
	{"DuplicatesKeepScores", testDuplicatesKeepScores},
	{"DuplicatesAlsoAtBounded", testDuplicatesAlsoAtBounded},
	{"DuplicatesInBatch", testDuplicatesInBatch},
	{"DuplicatesRandomized", testDuplicatesRandomized},
	{"DuplicatesRandomizedMostlyAlone", testDuplicatesRandomizedMostlyAlone},
}

// dupDoc returns a document at url with the given text and its
// ContentHash.
func dupDoc(url, title, content string) *textindex.Document {
	d := newDoc(title, content)
	d.URL = url
	d.ContentHash = textindex.ContentHash(title, content)
	return d
}

// wantGroup fails unless searching q gives exactly one result, canon, with
// AlsoAt listing alsoAt in that order, and the index counts n documents.
func wantGroup(t *testing.T, idx textindex.Indexer, q string, n uint64, canon *textindex.Document, alsoAt ...string) {
	t.Helper()
	got, total := search(t, idx, match(q))
	if total != 1 || len(got) != 1 {
		t.Fatalf("Search(%q): %d results (TotalCount %d), want 1: %v", q, len(got), total, urls(got))
	}
	if got[0].LinkID != canon.LinkID || got[0].URL != canon.URL {
		t.Fatalf("Search(%q): got %s, want the canonical %s", q, got[0].URL, canon.URL)
	}
	if !slices.Equal(got[0].AlsoAt, alsoAt) {
		t.Fatalf("Search(%q): AlsoAt = %q, want %q", q, got[0].AlsoAt, alsoAt)
	}
	if got[0].DuplicateOf != uuid.Nil {
		t.Fatalf("Search(%q): a result has DuplicateOf %s", q, got[0].DuplicateOf)
	}
	if c, ok, err := textindex.Count(context.Background(), idx); err != nil || !ok || c != n {
		t.Fatalf("Count = %d, %v, %v; want %d", c, ok, err, n)
	}
}

func urls(docs []*textindex.Document) []string {
	out := make([]string, len(docs))
	for n, d := range docs {
		out[n] = d.URL
	}
	return out
}

// wantDuplicateOf fails unless FindByID(d) says d is an alias of canon.
func wantDuplicateOf(t *testing.T, idx textindex.Indexer, d, canon *textindex.Document) {
	t.Helper()
	got, err := idx.FindByID(d.LinkID)
	if err != nil {
		t.Fatalf("FindByID(%s): %v", d.URL, err)
	}
	if got.DuplicateOf != canon.LinkID || got.URL != d.URL || got.Content != d.Content || got.ContentHash != d.ContentHash ||
		len(got.AlsoAt) != 0 {
		t.Fatalf("FindByID(%s): DuplicateOf %s, URL %s, hash %q; want DuplicateOf %s (%s)",
			d.URL, got.DuplicateOf, got.URL, got.ContentHash, canon.LinkID, canon.URL)
	}
}

// testDuplicatesAreOneResult: the same page under three URLs is one
// search result, the shortest URL, listing the others.
func testDuplicatesAreOneResult(t *testing.T, idx textindex.Indexer) {
	a := dupDoc("https://example.com/a", "Gopher page", "all about gophers")
	b := dupDoc("https://example.com/a?ref=1", "Gopher page", "all about gophers")
	c := dupDoc("https://mirror.example.com/a", "Gopher page", "all about gophers")
	other := dupDoc("https://example.com/b", "Other", "nothing alike")
	mustIndex(t, idx, b, a, other, c)
	wantGroup(t, idx, "gophers", 2, a, b.URL, c.URL)
	wantDuplicateOf(t, idx, b, a)
	wantDuplicateOf(t, idx, c, a)
	got, err := idx.FindByID(a.LinkID)
	if err != nil {
		t.Fatalf("FindByID(canonical): %v", err)
	}
	if got.DuplicateOf != uuid.Nil || !slices.Equal(got.AlsoAt, []string{b.URL, c.URL}) {
		t.Fatalf("FindByID(canonical): DuplicateOf %s, AlsoAt %q", got.DuplicateOf, got.AlsoAt)
	}
	// Re-indexing a member unchanged (a re-crawl) changes nothing.
	mustIndex(t, idx, a, c, b)
	wantGroup(t, idx, "gophers", 2, a, b.URL, c.URL)
}

// testDuplicatesCanonicalIgnoresOrder: whichever member comes first, the
// canonical is the same.
func testDuplicatesCanonicalIgnoresOrder(t *testing.T, idx textindex.Indexer) {
	long := dupDoc("https://example.com/zz/longer", "Same", "identical words")
	short := dupDoc("https://example.com/zz", "Same", "identical words")
	// Same length as short: byte order decides.
	peer := dupDoc("https://example.com/yy", "Same", "identical words")
	mustIndex(t, idx, long)
	wantGroup(t, idx, "identical", 1, long)
	mustIndex(t, idx, short)
	wantGroup(t, idx, "identical", 1, short, long.URL)
	mustIndex(t, idx, peer)
	wantGroup(t, idx, "identical", 1, peer, short.URL, long.URL)
	wantDuplicateOf(t, idx, short, peer)
}

// testDuplicatesContentChangeLeavesGroup: a member whose text changes is a
// result of its own; the group it left keeps one result, and the
// canonical's leaving promotes the next member.
func testDuplicatesContentChangeLeavesGroup(t *testing.T, idx textindex.Indexer) {
	a := dupDoc("https://example.com/1", "Shared", "shared text here")
	b := dupDoc("https://example.com/22", "Shared", "shared text here")
	c := dupDoc("https://example.com/333", "Shared", "shared text here")
	mustIndex(t, idx, a, b, c)
	wantGroup(t, idx, "shared", 1, a, b.URL, c.URL)

	// The canonical changes: b takes over the group.
	a2 := *a
	a2.Content, a2.ContentHash = "changed words now", textindex.ContentHash(a.Title, "changed words now")
	mustIndex(t, idx, &a2)
	wantGroup(t, idx, "text", 2, b, c.URL)
	wantGroup(t, idx, "changed", 2, &a2)
	wantDuplicateOf(t, idx, c, b)

	// A member that is not canonical changes.
	c2 := *c
	c2.Content, c2.ContentHash = "changed words now", a2.ContentHash
	mustIndex(t, idx, &c2)
	wantGroup(t, idx, "text", 2, b)
	wantGroup(t, idx, "changed", 2, &a2, c.URL)

	// a comes back: the group is whole again under it.
	mustIndex(t, idx, a)
	wantGroup(t, idx, "here", 2, a, b.URL)
	wantGroup(t, idx, "changed", 2, &c2)
}

// testDuplicatesRedirectIsAlias: a redirect's document is an alias of the
// page it led to, even with a shorter URL, and only canonical when no
// other member is left.
func testDuplicatesRedirectIsAlias(t *testing.T, idx textindex.Indexer) {
	page := dupDoc("https://example.com/docs/index.html", "Docs", "the documentation")
	redir := dupDoc("http://example.com/docs", "Docs", "the documentation")
	redir.Redirect = true
	dup := dupDoc("https://example.com/docs/index.html?x=1", "Docs", "the documentation")
	mustIndex(t, idx, redir, dup, page)
	wantGroup(t, idx, "documentation", 1, page, dup.URL, redir.URL)
	wantDuplicateOf(t, idx, redir, page)
	got, err := idx.FindByID(redir.LinkID)
	if err != nil || !got.Redirect {
		t.Fatalf("FindByID(redirect): Redirect not kept: %+v, %v", got, err)
	}

	// The page and its duplicate change; the redirect, not re-fetched
	// yet, is all that holds the old text.
	for _, d := range []*textindex.Document{page, dup} {
		d2 := *d
		d2.Content, d2.ContentHash = "new documentation", textindex.ContentHash(d.Title, "new documentation")
		mustIndex(t, idx, &d2)
	}
	wantGroup(t, idx, "the", 2, redir)
}

// testDuplicatesWithoutHash: documents without a ContentHash are never
// grouped, however alike.
func testDuplicatesWithoutHash(t *testing.T, idx textindex.Indexer) {
	a, b := newDoc("Twin", "twin text"), newDoc("Twin", "twin text")
	mustIndex(t, idx, a, b)
	wantIDs(t, idx, match("twin"), a, b)
	for _, d := range []*textindex.Document{a, b} {
		got, err := idx.FindByID(d.LinkID)
		if err != nil || got.DuplicateOf != uuid.Nil || len(got.AlsoAt) != 0 {
			t.Fatalf("FindByID: %+v, %v", got, err)
		}
	}
	if textindex.ContentHash("", "") != "" {
		t.Fatal(`ContentHash("", "") is not empty: empty pages would form one group`)
	}
	if textindex.ContentHash("ab", "c") == textindex.ContentHash("a", "bc") {
		t.Fatal("ContentHash does not tell title from text")
	}
}

// testDuplicatesKeepScores: each member keeps its own PageRank, and a
// score does not make an alias searchable.
func testDuplicatesKeepScores(t *testing.T, idx textindex.Indexer) {
	a := dupDoc("https://example.com/s", "Scored", "scored words")
	b := dupDoc("https://example.com/ss", "Scored", "scored words")
	mustIndex(t, idx, a, b)
	if err := idx.UpdateScore(b.LinkID, 0.75); err != nil {
		t.Fatal(err)
	}
	if err := idx.UpdateScore(a.LinkID, 0.25); err != nil {
		t.Fatal(err)
	}
	wantGroup(t, idx, "scored", 1, a, b.URL)
	got, _ := search(t, idx, match("scored"))
	if got[0].PageRank != 0.25 {
		t.Fatalf("canonical PageRank = %v, want its own 0.25", got[0].PageRank)
	}
	alias, err := idx.FindByID(b.LinkID)
	if err != nil || alias.PageRank != 0.75 {
		t.Fatalf("alias: %+v, %v; want PageRank 0.75", alias, err)
	}
}

// testDuplicatesAlsoAtBounded: AlsoAt lists at most MaxAlsoAt URLs, the
// first in canonical order.
func testDuplicatesAlsoAtBounded(t *testing.T, idx textindex.Indexer) {
	var docs []*textindex.Document
	var want []string
	for n := range textindex.MaxAlsoAt + 5 {
		d := dupDoc(fmt.Sprintf("https://example.com/p%03d", n), "Soft 404", "page not found")
		docs = append(docs, d)
		if n > 0 && len(want) < textindex.MaxAlsoAt {
			want = append(want, d.URL)
		}
	}
	slices.Reverse(docs)
	if bi, ok := idx.(textindex.BatchIndexer); ok {
		if err := bi.IndexBatch(docs); err != nil {
			t.Fatal(err)
		}
	} else {
		mustIndex(t, idx, docs...)
	}
	wantGroup(t, idx, "found", 1, docs[len(docs)-1], want...)
}

// testDuplicatesInBatch: a batch holding a group, and a member moving
// between groups within one batch, as Index calls in order would.
func testDuplicatesInBatch(t *testing.T, idx textindex.Indexer) {
	bi, ok := idx.(textindex.BatchIndexer)
	if !ok {
		t.Skip("the backend does not implement textindex.BatchIndexer")
	}
	a := dupDoc("https://example.com/a", "Twin", "batched words")
	b := dupDoc("https://example.com/bb", "Twin", "batched words")
	c := dupDoc("https://example.com/ccc", "Twin", "batched words")
	a2 := *a
	a2.Content, a2.ContentHash = "moved away", textindex.ContentHash(a.Title, "moved away")
	if err := bi.IndexBatch([]*textindex.Document{c, a, b, &a2}); err != nil {
		t.Fatal(err)
	}
	wantGroup(t, idx, "batched", 2, b, c.URL)
	wantGroup(t, idx, "moved", 2, &a2)
	if err := bi.IndexBatch([]*textindex.Document{a}); err != nil {
		t.Fatal(err)
	}
	wantGroup(t, idx, "batched", 1, a, b.URL, c.URL)
}

// testDuplicatesRandomized indexes random versions of a few URLs, one by
// one and in batches, and checks every group against the rule worked out
// from scratch: whatever the history, each text is one result, the
// canonical in CompareCanonical order, listing the others.
func testDuplicatesRandomized(t *testing.T, idx textindex.Indexer) {
	r := rand.New(rand.NewPCG(16, 5))
	const texts = 3
	ids := make([]uuid.UUID, 8)
	for n := range ids {
		ids[n] = uuid.New()
	}
	current := map[uuid.UUID]*textindex.Document{}
	version := func() *textindex.Document {
		n := r.IntN(len(ids))
		k := r.IntN(texts)
		content := fmt.Sprintf("text%d shared words", k)
		d := dupDoc(fmt.Sprintf("https://example.com/%s", strings.Repeat("p", 1+n%4)+fmt.Sprint(n)), "T", content)
		d.LinkID, d.Redirect = ids[n], r.IntN(4) == 0
		return d
	}
	bi, batches := idx.(textindex.BatchIndexer)
	for step := range 40 {
		var docs []*textindex.Document
		for range 1 + r.IntN(4) {
			docs = append(docs, version())
		}
		if batches && step%2 == 0 {
			if err := bi.IndexBatch(docs); err != nil {
				t.Fatal(err)
			}
		} else {
			mustIndex(t, idx, docs...)
		}
		for _, d := range docs {
			current[d.LinkID] = d
		}
		for k := range texts {
			var group []*textindex.Document
			for _, d := range current {
				if strings.HasPrefix(d.Content, fmt.Sprintf("text%d ", k)) {
					group = append(group, d)
				}
			}
			got, total := search(t, idx, match(fmt.Sprintf("text%d", k)))
			if len(group) == 0 {
				if total != 0 {
					t.Fatalf("step %d: text%d has no document, search finds %d", step, k, total)
				}
				continue
			}
			slices.SortFunc(group, textindex.CompareCanonical)
			if total != 1 || len(got) != 1 || got[0].LinkID != group[0].LinkID || !slices.Equal(got[0].AlsoAt, urls(group[1:])) {
				t.Fatalf("step %d, text%d: got %v (%d) also at %q; want %s also at %q",
					step, k, urls(got), total, firstAlsoAt(got), group[0].URL, urls(group[1:]))
			}
		}
	}
}

func firstAlsoAt(docs []*textindex.Document) []string {
	if len(docs) == 0 {
		return nil
	}
	return docs[0].AlsoAt
}

// testDuplicatesRandomizedMostlyAlone is testDuplicatesRandomized with
// many texts, as a crawl has them: most documents share their content
// with none other (a backend may store those a batch at a time), some
// with one or two, some have no hash at all, and scores are recorded for
// documents not indexed yet and for indexed ones along the way. Every
// document is checked after each step: found by its ID with its own
// version and score, and its text found once, as its group's canonical or
// under it.
func testDuplicatesRandomizedMostlyAlone(t *testing.T, idx textindex.Indexer) {
	r := rand.New(rand.NewPCG(7, 11))
	const texts = 30
	ids := make([]uuid.UUID, 20)
	for n := range ids {
		ids[n] = uuid.New()
	}
	current := map[uuid.UUID]*textindex.Document{}
	scores := map[uuid.UUID]float64{} // the last score recorded, if any
	version := func() *textindex.Document {
		n := r.IntN(len(ids))
		var d *textindex.Document
		if r.IntN(6) == 0 {
			// No hash: a text of its own, in no group.
			d = newDoc("T", fmt.Sprintf("solo%d words", n))
			d.URL = fmt.Sprintf("https://example.com/solo/%d", n)
		} else {
			d = dupDoc(fmt.Sprintf("https://example.com/%s%d", strings.Repeat("q", 1+n%3), n), "T",
				fmt.Sprintf("text%d shared words", r.IntN(texts)))
		}
		d.LinkID, d.Redirect = ids[n], r.IntN(5) == 0
		d.PageRank = float64(1+r.IntN(100)) / 1000
		return d
	}
	bi, batches := idx.(textindex.BatchIndexer)
	for step := range 60 {
		for range r.IntN(3) {
			id := ids[r.IntN(len(ids))]
			score := float64(r.IntN(1000)) / 1000
			if err := idx.UpdateScore(id, score); err != nil {
				t.Fatal(err)
			}
			scores[id] = score
		}
		var docs []*textindex.Document
		for range 1 + r.IntN(10) {
			docs = append(docs, version())
		}
		if batches && step%3 != 0 {
			if err := bi.IndexBatch(docs); err != nil {
				t.Fatal(err)
			}
		} else {
			mustIndex(t, idx, docs...)
		}
		for _, d := range docs {
			if _, ok := current[d.LinkID]; !ok {
				if _, scored := scores[d.LinkID]; !scored {
					// A document's first version brings its score; a
					// later one keeps the score stored.
					scores[d.LinkID] = d.PageRank
				}
			}
			current[d.LinkID] = d
		}
		for id, d := range current {
			got, err := idx.FindByID(id)
			if err != nil {
				t.Fatalf("step %d: FindByID(%s): %v", step, d.URL, err)
			}
			if got.URL != d.URL || got.Content != d.Content || got.PageRank != scores[id] {
				t.Fatalf("step %d: FindByID(%s) = %s %q score %v; want %q score %v",
					step, id, got.URL, got.Content, got.PageRank, d.Content, scores[id])
			}
			word := strings.Fields(d.Content)[0]
			var group []*textindex.Document
			for _, o := range current {
				if o.Content == d.Content && (o.ContentHash != "") == (d.ContentHash != "") {
					group = append(group, o)
				}
			}
			slices.SortFunc(group, textindex.CompareCanonical)
			res, total := search(t, idx, match(word))
			if total != 1 || len(res) != 1 || res[0].LinkID != group[0].LinkID {
				t.Fatalf("step %d: %q finds %v (%d), want %s", step, word, urls(res), total, group[0].URL)
			}
		}
	}
}

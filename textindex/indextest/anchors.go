package indextest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/linksrus/linksrus/textindex"
)

// testAnchorText: UpdateAnchors gives each document the words of other
// documents' links to it (counted once per source page and held once, not
// from the page itself or its duplicates, to pages indexed after their
// sources too), which then rank it among the documents matching a query
// on their own (never making a document match), weighed by
// Weights.Anchor; FindByID returns a document's links as stored and its
// anchor text, and search results their anchor text.
func testAnchorText(t *testing.T, idx textindex.Indexer) {
	ctx := context.Background()
	// Without anchor text the reference page, which names the tool once,
	// comes after the page that keeps mentioning it.
	ref := newDoc("Reference", "the interactive terminal psql reads queries")
	chatty := newDoc("Notes", "psql psql psql psql and more psql notes on the terminal")
	later := newDoc("Later", "a page indexed after the pages that link to it, with psql in it")
	dup := *ref
	dup.LinkID, dup.URL = newDoc("", "").LinkID, ref.URL+"-copy"
	ref.ContentHash = textindex.ContentHash(ref.Title, ref.Content)
	dup.ContentHash = ref.ContentHash
	ref.Links = []textindex.Link{{URL: ref.URL, Text: "psql itself"}, {URL: chatty.URL, Text: "notes"}}
	dup.Links = []textindex.Link{{URL: ref.URL, Text: "psql duplicate zebra"}}

	// Pages linked with other words, so that the anchor text's IDF of
	// psql is that of a word few pages are linked with.
	var others []*textindex.Document
	for n := range 8 {
		others = append(others, newDoc(fmt.Sprintf("Other %d", n), "another page"))
	}
	var sources []*textindex.Document
	for n, text := range []string{"psql", "PSQL", "psql", "the psql tool"} {
		s := newDoc("Source", "a page that links elsewhere")
		s.Links = []textindex.Link{
			{URL: ref.URL, Text: text},
			{URL: ref.URL, Text: "psql"},      // the same words twice from one page
			{URL: later.URL, Text: "giraffe"}, // not indexed yet
			{URL: "https://example.com/nowhere", Text: "psql"},
			{URL: chatty.URL, Text: ""}, // no words
		}
		if n == 0 {
			s.Links = append(s.Links, textindex.Link{URL: ref.URL, Text: "zebra crossing"})
		}
		if n == 1 { // to another URL of the reference page's group
			s.Links = append(s.Links, textindex.Link{URL: dup.URL, Text: "copy words"})
		}
		for k, o := range others {
			s.Links = append(s.Links, textindex.Link{URL: o.URL, Text: fmt.Sprintf("other page %d", k)})
		}
		sources = append(sources, s)
	}
	mustIndex(t, idx, ref, &dup, chatty)
	mustIndex(t, idx, others...)
	mustIndex(t, idx, sources...)

	order := func(q textindex.Query) []string {
		t.Helper()
		docs, _ := search(t, idx, q)
		return titles(docs)
	}
	if got := order(match("psql")); !slices.Equal(got[:2], []string{"Notes", "Reference"}) {
		t.Fatalf("before UpdateAnchors: %q, want Notes then Reference", got)
	}
	if err := idx.UpdateAnchors(ctx); err != nil {
		t.Fatalf("UpdateAnchors: %v", err)
	}
	if got := order(match("psql")); !slices.Equal(got[:2], []string{"Reference", "Notes"}) {
		t.Fatalf("after UpdateAnchors: %q, want Reference first", got)
	}
	noAnchors := textindex.DefaultWeights
	noAnchors.Anchor = 0
	if got := order(textindex.Query{Expression: "psql", Weights: noAnchors}); !slices.Equal(got[:2], []string{"Notes", "Reference"}) {
		t.Fatalf("Anchor weight 0: %q, want the order without anchor text", got)
	}
	// Anchor text alone does not make a page match.
	if got := order(match("zebra")); len(got) != 0 {
		t.Fatalf("zebra (only in anchor text): %q, want nothing", got)
	}

	found, err := idx.FindByID(ref.LinkID)
	if err != nil {
		t.Fatal(err)
	}
	// From other pages only (not the page itself, not its duplicate),
	// to any URL of its group, each text once (folded), the most sources
	// first.
	want := []string{"psql", "copy words", "the psql tool", "zebra crossing"}
	if !slices.Equal(found.Anchors, want) {
		t.Fatalf("anchors of the reference page: %q, want %q", found.Anchors, want)
	}
	got, err := idx.FindByID(sources[0].LinkID)
	if err != nil {
		t.Fatal(err)
	}
	wantLinks := []textindex.Link{
		{URL: "https://example.com/nowhere", Text: "psql"},
		{URL: later.URL, Text: "giraffe"},
		{URL: ref.URL, Text: "psql; zebra crossing"},
	}
	for k, o := range others {
		wantLinks = append(wantLinks, textindex.Link{URL: o.URL, Text: fmt.Sprintf("other page %d", k)})
	}
	slices.SortFunc(wantLinks, func(a, b textindex.Link) int { return strings.Compare(a.URL, b.URL) })
	if !slices.Equal(got.Links, wantLinks) {
		t.Fatalf("links of a source: %q, want %q (sorted by URL, words joined, none without words)", got.Links, wantLinks)
	}
	docs, _ := search(t, idx, match("interactive terminal"))
	if len(docs) != 1 || !slices.Equal(docs[0].Anchors, want) {
		t.Fatalf("search result's anchors: %+v", docs)
	}

	// A page indexed after the pages linking to it gets their words at
	// the next UpdateAnchors; a replaced page keeps its anchor text.
	mustIndex(t, idx, later, ref)
	if err := idx.UpdateAnchors(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		d    *textindex.Document
		want []string
	}{{later, []string{"giraffe"}}, {ref, want}} {
		f, err := idx.FindByID(c.d.LinkID)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Anchors, c.want) {
			t.Fatalf("anchors of %q: %q, want %q", c.d.Title, f.Anchors, c.want)
		}
	}

	// Sources that no longer link there take their words away.
	for _, s := range sources {
		s.Links = nil
	}
	mustIndex(t, idx, sources...)
	if err := idx.UpdateAnchors(ctx); err != nil {
		t.Fatal(err)
	}
	if f, err := idx.FindByID(ref.LinkID); err != nil || len(f.Anchors) != 0 {
		t.Fatalf("anchors after the links went: %v %v", f, err)
	}
	if got, want := order(match("psql")), order(textindex.Query{Expression: "psql", Weights: noAnchors}); !slices.Equal(got, want) {
		t.Fatalf("after the links went: %q, want the order without anchor text, %q", got, want)
	}
}

// testAnchorsKeptOnCancel: an UpdateAnchors whose context has ended fails
// with the context's error and leaves the anchor text as the last one
// that succeeded made it, even with links changed since.
func testAnchorsKeptOnCancel(t *testing.T, idx textindex.Indexer) {
	target := newDoc("Target", "the page linked to")
	source := newDoc("Source", "a page that links")
	source.Links = []textindex.Link{{URL: target.URL, Text: "first words"}}
	mustIndex(t, idx, target, source)
	if err := idx.UpdateAnchors(context.Background()); err != nil {
		t.Fatalf("UpdateAnchors: %v", err)
	}
	source.Links = []textindex.Link{{URL: target.URL, Text: "second words"}}
	mustIndex(t, idx, source)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := idx.UpdateAnchors(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("UpdateAnchors with its context cancelled = %v, want context.Canceled", err)
	}
	got, err := idx.FindByID(target.LinkID)
	if err != nil {
		t.Fatalf("FindByID: %v", err)
	}
	if !slices.Equal(got.Anchors, []string{"first words"}) {
		t.Errorf("anchor text after a cancelled update: %q, want the last one made, %q", got.Anchors, "first words")
	}
}

package indextest

import (
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

// testWordForms: a word finds its other forms (the same stem) in every
// field, the form asked for first; a phrase matches stems in order; each
// document is stemmed in its own language, and a query in the query's;
// an exclusion leaves out the word as written only.
func testWordForms(t *testing.T, idx textindex.Indexer) {
	filler := " on a quiet morning at the old house"
	asked := newDoc("Notes", "we were vacuuming the tables"+filler)
	other := newDoc("Notes", "we vacuumed the table"+filler)
	titled := newDoc("Vacuum", "about the cleaning of floors"+filler)
	reversed := newDoc("Notes", "tables vacuumed by the staff"+filler)
	french := newDoc("Maisons", "les maisons de la ville")
	french.Language = "fr-FR"
	german := newDoc("Läufe", "running and walking")
	german.Language = "de" // no stemmer: words only as written
	unrelated := newDoc("Notes", "the vacuous argument"+filler)
	// Underscores separate words, as every non-letter does, whatever a
	// backend marks its stems with.
	snake := newDoc("Settings", "raise shared_buffers_ a little")
	mustIndex(t, idx, asked, other, titled, reversed, french, german, unrelated, snake)
	// Other pages, so that the words above are rare, as in a real corpus.
	for _, text := range []string{"gardens in spring", "a walk by the river", "the history of bridges",
		"recipes for bread", "trains and timetables", "painting the fence", "a letter from abroad"} {
		mustIndex(t, idx, newDoc("Page", text+filler))
	}

	order := func(q textindex.Query, want ...*textindex.Document) {
		t.Helper()
		got, total := search(t, idx, q)
		var wantIDs []uuid.UUID
		for _, d := range want {
			wantIDs = append(wantIDs, d.LinkID)
		}
		if !slices.Equal(ids(got), wantIDs) || total != uint64(len(want)) {
			t.Errorf("%s %q (language %q): %v (%d in all), want %v", q.Type, q.Expression, q.Language, contents(got), total, contents(want))
		}
	}
	// Every form, in every field; the form asked for above other forms
	// at the same place.
	got, total := search(t, idx, match("vacuuming"))
	place := map[uuid.UUID]int{}
	for n, d := range got {
		place[d.LinkID] = n + 1
	}
	if total != 4 || len(got) != 4 || place[titled.LinkID] == 0 ||
		place[asked.LinkID] == 0 || place[asked.LinkID] > place[other.LinkID] || place[asked.LinkID] > place[reversed.LinkID] {
		t.Errorf("match vacuuming: %v (%d in all), want the four pages holding a form of it, %q above %q and %q",
			contents(got), total, asked.Content, other.Content, reversed.Content)
	}
	order(match("vacuumed table"), other, reversed, asked)
	// A phrase matches the stems in order, the exact words first.
	order(textindex.Query{Type: textindex.QueryTypePhrase, Expression: "vacuumed the table"}, other, asked)
	order(textindex.Query{Type: textindex.QueryTypeSearch, Expression: `"vacuuming the table" -vacuumed`}, asked)
	// Languages: a French query finds French forms; a German document is
	// not stemmed, and the English stems of a query do not reach it.
	order(textindex.Query{Expression: "maison", Language: "fr"}, french)
	order(match("run"))
	order(match("running"), german)
	// A stop word has no stem ("the" says nothing as a stem that it does
	// not as written): a query of stop words matches them as written, and
	// a phrase's stems skip them.
	if _, total := search(t, idx, match("the")); total != 12 {
		got, _ := search(t, idx, match("the"))
		t.Errorf(`match "the": %d results, want the 12 pages saying it: %v`, total, contents(got))
	}
	order(textindex.Query{Type: textindex.QueryTypePhrase, Expression: "table vacuumed by"}, reversed)
	order(match("_shared buffer"), snake)
	order(textindex.Query{Type: textindex.QueryTypePhrase, Expression: "shared_buffer"}, snake)
}

// contents returns the documents' texts, for failure messages.
func contents(docs []*textindex.Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.Title+": "+d.Content)
	}
	return out
}

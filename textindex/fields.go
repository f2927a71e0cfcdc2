package textindex

import (
	"slices"

	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// The fields of a document, as MatchedFields names them.
const (
	FieldTitle    = "title"
	FieldURL      = "url"
	FieldHeadings = "headings" // Document.Headings
	FieldBody     = "body"
	FieldAnchor   = "anchor" // Document.Anchors
)

// MatchedFields returns the fields of d, a search result of q, that hold a
// word or phrase of q, as written or in another form (see Weights), in the
// order title, url, headings, body, anchor: where the search found d, which
// explains its relevance beside the weights. A field is read as the index
// reads it (the URL's path terms; the text as stored, which the index
// reads only in its first 131,072 characters in PostgreSQL).
func MatchedFields(q Query, d *Document) []string {
	s := searchOf(q)
	st := terms.StemmerFor(q.Language)
	units := s.Units(st)
	if len(units) == 0 {
		return nil
	}
	docStems := terms.StemmerFor(d.Language)
	var out []string
	for _, f := range []struct {
		name  string
		words []string
	}{
		{FieldTitle, terms.Split(d.Title)},
		{FieldURL, terms.URLTerms(d.URL)},
		{FieldHeadings, terms.Split(d.Headings)},
		{FieldBody, terms.Split(d.Content)},
		{FieldAnchor, terms.Split(joinAnchors(d.Anchors))},
	} {
		stems := docStems.Stems(f.words)
		if slices.ContainsFunc(units, func(u terms.Unit) bool {
			return holds(f.words, u.Exact) || (len(u.Stems) > 0 && holds(stems, u.Stems))
		}) {
			out = append(out, f.name)
		}
	}
	return out
}

// joinAnchors returns anchor texts as one text, a line each.
func joinAnchors(texts []string) string {
	n := 0
	for _, t := range texts {
		n += len(t) + 1
	}
	b := make([]byte, 0, n)
	for _, t := range texts {
		b = append(append(b, t...), '\n')
	}
	return string(b)
}

// holds reports whether seq occurs, contiguously, in words.
func holds(words, seq []string) bool {
	if len(seq) == 0 {
		return false
	}
	for p := 0; p+len(seq) <= len(words); p++ {
		if slices.Equal(words[p:p+len(seq)], seq) {
			return true
		}
	}
	return false
}

// searchOf is q as a search-box query: a match query's words, a phrase
// query's phrase, or the parsed syntax of a search query.
func searchOf(q Query) terms.Search {
	switch q.Type {
	case QueryTypePhrase:
		words, _ := terms.Query(q.Expression, true)
		if len(words) > 1 {
			return terms.Search{Phrases: [][]string{words}}
		}
		return terms.Search{Words: words}
	case QueryTypeSearch:
		s, _ := terms.ParseSearch(q.Expression)
		return s
	}
	words, _ := terms.Query(q.Expression, false)
	return terms.Search{Words: words}
}

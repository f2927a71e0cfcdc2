package postgres

import (
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// The terms of documents and queries are found here, in Go, as the other
// backends find them (package terms), and handed to PostgreSQL as
// tsvectors and tsqueries of those terms: its own parser would split
// "pg_hba.conf" or "foo-bar" otherwise than they do, and parsing a page's
// text was most of the server's work when indexing (to_tsvector of the
// text and again of its stems: 57% of its CPU on the pg corpus).

// What a tsvector holds, as PostgreSQL's to_tsvector bounds it.
const (
	maxLexeme    = 2047  // bytes of a lexeme: longer terms are not indexed
	maxPosition  = 16383 // later terms are all at this position
	maxPositions = 255   // positions kept per lexeme, the first ones
)

// How much of each field is indexed, in characters, so that a document's
// tsvectors stay within PostgreSQL's limits; the stored text is never cut.
//
// The headings come before the text, so each of their terms takes a
// position from it (a phrase of the text past maxPosition no longer
// matches): 8192 characters hold the hundreds of headings of a long
// reference page, and are some 1,400 terms of usual length, under a
// tenth of the positions.
const (
	maxTitleChars    = 4096
	maxURLChars      = 4096
	maxHeadingsChars = 8192
	maxBodyChars     = 131072
)

// Labels of the fields in both tsvectors (see rankWeights).
const (
	labelTitle    = pgtype.TSVectorWeightA
	labelURL      = pgtype.TSVectorWeightB
	labelHeadings = pgtype.TSVectorWeightC
	labelBody     = pgtype.TSVectorWeightD
)

// vectors builds a text's tsvector of its terms as written and that of
// their stems (terms without a stem left out, so that a phrase of stems
// matches with the stop words between them skipped, as in the other
// backends). Fields are added one after another, a position apart, so
// that no phrase spans two. A vectors is reused from one document to the
// next: what it returned stays valid.
type vectors struct {
	st           terms.Stemmer
	exact, stems lexemes
}

func newVectors() *vectors {
	return &vectors{exact: lexemes{at: make(map[string]int32)}, stems: lexemes{at: make(map[string]int32)}}
}

// document returns the tsvectors of a document's title, URL path terms
// (urlTerms, space-separated), headings and text, as written and as stems.
func (v *vectors) document(title, urlTerms, headings, body string, st terms.Stemmer) (exact, stems pgtype.TSVector) {
	v.st = st
	v.field(title, maxTitleChars, labelTitle)
	v.field(urlTerms, maxURLChars, labelURL)
	// An empty field after another still takes a position (the gap): no
	// headings take none, so that a document without them has the
	// vectors it had before headings were indexed (see migration 0007).
	if headings != "" {
		v.field(headings, maxHeadingsChars, labelHeadings)
	}
	v.field(body, maxBodyChars, labelBody)
	return v.exact.vector(), v.stems.vector()
}

// text returns the tsvectors of one text (a page's anchor text), labelled
// as a document's text.
func (v *vectors) text(text string, st terms.Stemmer) (exact, stems pgtype.TSVector) {
	v.st = st
	v.field(text, maxBodyChars, labelBody)
	return v.exact.vector(), v.stems.vector()
}

// field adds the terms of the first maxChars characters of text.
func (v *vectors) field(text string, maxChars int, label pgtype.TSVectorWeight) {
	for term := range terms.All(cut(text, maxChars)) {
		v.exact.add(term, label)
		if st := v.st.StemOrNone(term); st != "" {
			v.stems.add(st, label)
		}
	}
	v.exact.gap()
	v.stems.gap()
}

// lexemes collects the lexemes of a tsvector and where they occur.
type lexemes struct {
	pos   uint16           // of the last term added
	at    map[string]int32 // index of a lexeme in words
	words []string
	occ   []occurrence // in position order
}

type occurrence struct {
	lexeme int32 // in words, or in the sorted lexemes (vector)
	pos    uint16
	label  pgtype.TSVectorWeight
}

func (l *lexemes) add(term string, label pgtype.TSVectorWeight) {
	if l.pos < maxPosition {
		l.pos++
	}
	if len(term) > maxLexeme {
		return
	}
	i, ok := l.at[term]
	if !ok {
		i = int32(len(l.words))
		l.at[term] = i
		l.words = append(l.words, term)
	}
	l.occ = append(l.occ, occurrence{i, l.pos, label})
}

// gap ends a field.
func (l *lexemes) gap() {
	if l.pos > 0 && l.pos < maxPosition {
		l.pos++
	}
}

// vector returns the tsvector and makes l empty. Its lexemes are in the
// order PostgreSQL keeps them (byte order), which its binary input then
// need not sort, each with its first maxPositions positions, one at
// maxPosition at most; all positions share one array.
func (l *lexemes) vector() pgtype.TSVector {
	sorted := slices.Clone(l.words)
	slices.Sort(sorted)
	rank := make([]int32, len(sorted)) // of each lexeme in words
	for r, w := range sorted {
		rank[l.at[w]] = int32(r)
	}
	start := make([]int32, len(sorted)+1) // of each lexeme's positions, once summed
	last := make([]uint16, len(sorted))
	kept := l.occ[:0]
	for _, o := range l.occ {
		r := rank[o.lexeme]
		if start[r+1] == maxPositions || last[r] == o.pos {
			continue
		}
		start[r+1]++
		last[r] = o.pos
		kept = append(kept, occurrence{r, o.pos, o.label})
	}
	for r := range sorted {
		start[r+1] += start[r]
	}
	positions := make([]pgtype.TSVectorPosition, len(kept))
	next := slices.Clone(start[:len(sorted)])
	for _, o := range kept {
		positions[next[o.lexeme]] = pgtype.TSVectorPosition{Position: o.pos, Weight: o.label}
		next[o.lexeme]++
	}
	list := make([]pgtype.TSVectorLexeme, len(sorted))
	for r, w := range sorted {
		list[r] = pgtype.TSVectorLexeme{Word: w, Positions: positions[start[r]:start[r+1]:start[r+1]]}
	}
	l.pos, l.words, l.occ = 0, l.words[:0], l.occ[:0]
	clear(l.at)
	return pgtype.TSVector{Lexemes: list, Valid: true}
}

// cut returns the first n characters of s.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// tsquery returns the tsquery, in PostgreSQL's text form, that holds the
// terms in order (one term, or a phrase of them), each a quoted lexeme
// that is not normalised again; ok is false if one is too long to be a
// lexeme, which no document then holds.
func tsquery(words []string) (q string, ok bool) {
	var b strings.Builder
	for n, w := range words {
		if len(w) > maxLexeme {
			return "", false
		}
		if n > 0 {
			b.WriteString(" <-> ")
		}
		b.WriteByte('\'')
		for _, c := range []byte(w) {
			if c == '\'' || c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
		b.WriteByte('\'')
	}
	return b.String(), true
}

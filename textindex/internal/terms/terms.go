// Package terms splits search expressions and document text into the terms
// every textindex backend agrees on, so that a backend never hands user text
// to a query language it would interpret.
package terms

import (
	"net/url"
	"strings"
	"unicode"
)

// IsTermRune reports whether r belongs to a term: letters, numbers and
// combining marks (so that decomposed accents stay with their letter).
func IsTermRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// Split returns the lower-cased terms of s in order. Anything that is not a
// term rune separates terms, so the result never contains quotes, operators
// or other syntax.
func Split(s string) []string {
	var out []string
	for f := range strings.FieldsFuncSeq(s, func(r rune) bool { return !IsTermRune(r) }) {
		out = append(out, strings.ToLower(f))
	}
	return out
}

// Bounds of a query: more terms or bytes than this are cut off, so that no
// query can cost more than a bounded amount of work in any backend (the
// cost of a match grows with the square of its terms in FTS5).
const (
	MaxQueryTerms = 32
	MaxQueryBytes = 4 << 10
)

// Query returns the terms of a search expression, bounded: at most its
// first MaxQueryBytes bytes are read (cut at a rune boundary); for a match
// query (phrase false) repeated terms count once, since all of them must
// occur anyway; at most MaxQueryTerms terms are kept. cut reports whether
// anything but repetitions was dropped.
func Query(expr string, phrase bool) (words []string, cut bool) {
	expr, cut = bound(expr)
	seen := make(map[string]bool)
	for f := range strings.FieldsFuncSeq(expr, func(r rune) bool { return !IsTermRune(r) }) {
		w := strings.ToLower(f)
		if !phrase {
			if seen[w] {
				continue
			}
			seen[w] = true
		}
		if len(words) == MaxQueryTerms {
			return words, true
		}
		words = append(words, w)
	}
	return words, cut
}

// URLTerms returns the terms of rawURL's path, percent-decoded (a path
// that does not decode is split as it is), in order: the URL field of a
// document. Nothing is returned for a URL that does not parse.
func URLTerms(rawURL string) []string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil
	}
	return Split(u.Path) // url.Parse decodes the path
}

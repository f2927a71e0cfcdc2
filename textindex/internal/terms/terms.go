// Package terms splits search expressions and document text into the terms
// every textindex backend agrees on, so that a backend never hands user text
// to a query language it would interpret.
package terms

import (
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

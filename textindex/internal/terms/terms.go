// Package terms splits search expressions and document text into the terms
// every textindex backend agrees on, so that a backend never hands user text
// to a query language it would interpret.
package terms

import (
	"iter"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
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

// All yields the terms of text in order, as Split returns them, without
// a slice of them or, for a term that is lower-case ASCII already (most
// words of most pages), a copy.
func All(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start := -1 // of the term being read
		for i := 0; i < len(text); {
			c := text[i]
			var term bool
			size := 1
			if c < utf8.RuneSelf { // most text: no rune to decode
				term = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
			} else {
				var r rune
				r, size = utf8.DecodeRuneInString(text[i:])
				term = IsTermRune(r)
			}
			switch {
			case term && start < 0:
				start = i
			case !term && start >= 0:
				if !yield(lower(text[start:i])) {
					return
				}
				start = -1
			}
			i += size
		}
		if start >= 0 {
			yield(lower(text[start:]))
		}
	}
}

// lower returns f lower-cased as Split does, without a copy when it is
// lower-case ASCII already.
func lower(f string) string {
	for i := 0; i < len(f); i++ {
		if c := f[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			return strings.ToLower(f)
		}
	}
	return f
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

package terms

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Search is a search-box query taken apart: the words every result must
// hold, the phrases it must hold word for word, the words it must not
// hold, and the hosts it must be on.
type Search struct {
	Words   []string
	Phrases [][]string
	Exclude []string
	Sites   []Site
}

// Positive reports whether the query asks for anything to be present: a
// query of exclusions and sites only matches nothing.
func (s Search) Positive() bool { return len(s.Words) > 0 || len(s.Phrases) > 0 }

// String writes the query back in its own syntax, as it is run.
func (s Search) String() string {
	var parts []string
	parts = append(parts, s.Words...)
	for _, p := range s.Phrases {
		parts = append(parts, `"`+strings.Join(p, " ")+`"`)
	}
	for _, w := range s.Exclude {
		parts = append(parts, "-"+w)
	}
	for _, h := range s.Sites {
		parts = append(parts, "site:"+h.String())
	}
	return strings.Join(parts, " ")
}

// ParseSearch reads expr in the search-box syntax: words (all required),
// "exact phrases", -word (must not occur; -"a phrase" excludes its words
// each), site:host and site:host:port (see Site.Holds; several sites: any
// of them). Words are split and folded as Split does;
// repeated words, exclusions and sites count once. It is bounded like
// Query: the first MaxQueryBytes bytes, at most MaxQueryTerms terms in all
// (each phrase word and each site counting one); cut reports whether
// anything but repetitions was left out.
func ParseSearch(expr string) (s Search, cut bool) {
	expr, cut = bound(expr)
	n := 0
	full := func() bool {
		if n >= MaxQueryTerms {
			cut = true
			return true
		}
		return false
	}
	seenWord, seenEx, seenSite := map[string]bool{}, map[string]bool{}, map[Site]bool{}
	addWords := func(ws []string) {
		for _, w := range ws {
			if seenWord[w] || full() {
				continue
			}
			seenWord[w] = true
			s.Words = append(s.Words, w)
			n++
		}
	}
	addExcluded := func(ws []string) {
		for _, w := range ws {
			if seenEx[w] || full() {
				continue
			}
			seenEx[w] = true
			s.Exclude = append(s.Exclude, w)
			n++
		}
	}
	for rest := expr; rest != ""; {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if rest == "" {
			break
		}
		negate := false
		if rest[0] == '-' && len(rest) > 1 && !unicode.IsSpace(rune(rest[1])) {
			negate, rest = true, rest[1:]
		}
		var token string
		quoted := rest[0] == '"'
		if quoted {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				token, rest = rest[1:], "" // an open quote runs to the end
			} else {
				token, rest = rest[1:1+end], rest[2+end:]
			}
		} else {
			end := strings.IndexFunc(rest, unicode.IsSpace)
			if end < 0 {
				end = len(rest)
			}
			token, rest = rest[:end], rest[end:]
		}
		words := Split(token)
		switch {
		case negate:
			addExcluded(words)
		case !quoted && len(token) > 5 && strings.EqualFold(token[:5], "site:"):
			if site, ok := ParseSite(token[5:]); ok && !seenSite[site] && !full() {
				seenSite[site] = true
				s.Sites = append(s.Sites, site)
				n++
			}
		case quoted && len(words) > 1:
			if n+len(words) > MaxQueryTerms {
				cut = true
				continue
			}
			if !slices.ContainsFunc(s.Phrases, func(p []string) bool { return slices.Equal(p, words) }) {
				s.Phrases = append(s.Phrases, words)
				n += len(words)
			}
		default:
			addWords(words)
		}
	}
	return s, cut
}

// bound keeps the first MaxQueryBytes bytes of expr, leaving out a term
// cut there.
func bound(expr string) (string, bool) {
	if len(expr) <= MaxQueryBytes {
		return expr, false
	}
	n := MaxQueryBytes
	for n > 0 && !utf8.RuneStart(expr[n]) {
		n--
	}
	if r, _ := utf8.DecodeRuneInString(expr[n:]); IsTermRune(r) {
		n = strings.LastIndexFunc(expr[:n], func(r rune) bool { return !IsTermRune(r) }) + 1
	}
	return expr[:n], true
}

// A Unit is a word or phrase a result must hold: its terms as written and
// their stems (each with StemMark) in the query's language. A document
// holds it if it holds either in order within one of its fields, where
// the backends keep each field's stems beside its terms (see StemMark).
type Unit struct {
	Exact []string
	Stems []string
}

// Units returns the words of s, then its phrases, as units stemmed by st.
func (s Search) Units(st Stemmer) []Unit {
	out := make([]Unit, 0, len(s.Words)+len(s.Phrases))
	for _, w := range s.Words {
		out = append(out, Unit{Exact: []string{w}, Stems: st.Stems([]string{w})})
	}
	for _, p := range s.Phrases {
		out = append(out, Unit{Exact: p, Stems: st.Stems(p)})
	}
	return out
}

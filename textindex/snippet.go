package textindex

import (
	"strings"
	"unicode/utf8"

	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// A Snippet is a short excerpt of a document's text around the words a
// query matched, in parts so that a caller can mark the matched words up in
// its own way (HTML <mark>, terminal bold) and escape the rest.
type Snippet []SnippetPart

// SnippetPart is a piece of a Snippet: a matched word, or the text between.
type SnippetPart struct {
	Text  string `json:"text"`
	Match bool   `json:"match,omitempty"`
}

// String returns the snippet's text, unmarked.
func (s Snippet) String() string {
	var b strings.Builder
	for _, p := range s {
		b.WriteString(p.Text)
	}
	return b.String()
}

// Ellipsis marks where a Snippet cuts its text.
const Ellipsis = "…"

// MakeSnippet returns about width bytes of text (at least 40) around the
// words of q (see Terms) it holds: the stretch with the most distinct query
// words, the earliest one on a tie, starting a little before its first
// match. Words are compared as every backend compares terms (letters,
// numbers and marks; case-insensitive, accents kept), so the marked words
// are the ones the index matched, whatever the backend. Runs of white space
// become one space; the snippet is cut at word boundaries, with Ellipsis
// where text was left out. Text without any query word gives its
// beginning, unmarked.
//
// It is computed from the stored text rather than by the backend (FTS5's
// snippet(), PostgreSQL's ts_headline) so that every backend gives the
// same snippet, and so that an index that does not store the text twice
// (SQLite's contentless FTS5 table) can have one.
func MakeSnippet(text string, q Query, width int) Snippet {
	return snippetOf(text, Terms(q), width)
}

// token is a term of a text, as a byte range, with the query term it
// matches (-1: none).
type token struct {
	start, end int
	term       int
}

func snippetOf(text string, words []string, width int) Snippet {
	width = max(width, 40)
	text = strings.Join(strings.Fields(text), " ")
	want := make(map[string]int, len(words))
	for _, w := range words {
		if _, ok := want[w]; !ok {
			want[w] = len(want)
		}
	}
	toks := tokenize(text, want)
	start, end := window(text, toks, len(want), width)
	var s Snippet
	if start > 0 {
		s = append(s, SnippetPart{Text: Ellipsis})
	}
	at := start
	for _, t := range toks {
		if t.term < 0 || t.start < start || t.end > end {
			continue
		}
		if t.start > at {
			s = s.appendText(text[at:t.start])
		}
		s = append(s, SnippetPart{Text: text[t.start:t.end], Match: true})
		at = t.end
	}
	if at < end {
		s = s.appendText(text[at:end])
	}
	if end < len(text) {
		s = s.appendText(Ellipsis)
	}
	return s
}

// appendText adds unmatched text, merged with an unmatched part before it.
func (s Snippet) appendText(t string) Snippet {
	if n := len(s); n > 0 && !s[n-1].Match {
		s[n-1].Text += t
		return s
	}
	return append(s, SnippetPart{Text: t})
}

// tokenize splits text into terms, noting which query word each is.
func tokenize(text string, want map[string]int) []token {
	var toks []token
	start := -1
	for i, r := range text {
		in := terms.IsTermRune(r)
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			toks = append(toks, newToken(text, start, i, want))
			start = -1
		}
	}
	if start >= 0 {
		toks = append(toks, newToken(text, start, len(text), want))
	}
	return toks
}

func newToken(text string, start, end int, want map[string]int) token {
	t := token{start: start, end: end, term: -1}
	if len(want) > 0 {
		if i, ok := want[strings.ToLower(text[start:end])]; ok {
			t.term = i
		}
	}
	return t
}

// window picks the byte range [start, end) of text to show: width bytes
// from a little before the match that starts the most varied stretch of
// matches, moved onto word boundaries.
func window(text string, toks []token, nwords, width int) (start, end int) {
	if len(text) <= width {
		return 0, len(text)
	}
	var matches []token
	for _, t := range toks {
		if t.term >= 0 {
			matches = append(matches, t)
		}
	}
	keep := 0 // the start of the first match shown, which a cut must not pass
	if len(matches) > 0 {
		best, bestN := 0, 0
		seen := make([]int, nwords) // per word, the last stretch it counted in
		for i := range matches {
			n := 0
			for j := i; j < len(matches) && matches[j].end-matches[i].start <= width*2/3; j++ {
				if w := matches[j].term; seen[w] != i+1 {
					seen[w] = i + 1
					n++
				}
			}
			if n > bestN {
				best, bestN = i, n
			}
			if n == nwords {
				break // no stretch can do better; the earliest wins
			}
		}
		keep = matches[best].start
		start = max(keep-width/4, 0)
	}
	end = min(start+width, len(text))
	// Onto word boundaries: after a space at the start (but not past the
	// first match shown: failing a space before it, the snippet starts at
	// the match), before a space at the end; the text is single-spaced.
	if start > 0 {
		limit := end
		if keep > start {
			limit = keep
		}
		if sp := strings.IndexByte(text[start:limit], ' '); sp >= 0 && sp < width/4 {
			start += sp + 1
		} else if keep > start {
			start = keep
		}
		for start < end && !utf8.RuneStart(text[start]) {
			start++
		}
	}
	if end < len(text) {
		if sp := strings.LastIndexByte(text[start:end], ' '); sp > 0 {
			end = start + sp
		}
		for end > start && !utf8.RuneStart(text[end]) {
			end--
		}
	}
	return start, end
}

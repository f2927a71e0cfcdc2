package searchweb

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/linksrus/linksrus/textindex"
)

// Request is a query as the search page and `linksrus search` read it:
// what to run, what to show back, and what to tell the user, in the same
// words everywhere.
type Request struct {
	// Query is what to run: the text with control characters turned into
	// spaces (no term holds one), bounded by the index as BoundQuery says.
	Query textindex.Query
	// Shown is the query as pages and messages echo it: as typed, or,
	// when Cut, as it was searched (its first 4 KB and 32 words, written
	// back in the syntax), so that a long query is echoed at most a few
	// kilobytes at a time.
	Shown string
	// Cut reports that the query went past the bounds; CutNotice says so.
	Cut bool
	// Problem says, in a sentence, why the query cannot be searched; ""
	// when it can. A query with a problem is not run.
	Problem string
	// BadRequest reports that the problem is in what the client sent (not
	// UTF-8 text), not merely in what the user typed.
	BadRequest bool
}

// The problems ReadQuery tells.
const (
	problemEmpty        = "Type a word to search for."
	problemNotUTF8      = "The query is not UTF-8 text, so it was not searched (was it typed in another encoding?)."
	problemOnlyNarrow   = "The query has no word or phrase to look for: -word and site:host only narrow a search."
	problemNoLetters    = "The query has no word or phrase to look for: only letters and digits are searched, not punctuation or symbols."
	problemCutToNothing = "The query was cut to its first %d KB and %d words, which left no word to search for."
	cutNoticeFormat     = "The query was cut to its first %d KB and %d words; searched for %s."
)

// ReadQuery reads text, as typed, as a query of type typ (QueryTypeSearch
// for the search-box syntax) from offset.
func ReadQuery(text string, typ textindex.QueryType, offset uint64) Request {
	valid := utf8.ValidString(text)
	text = cleanQuery(text)
	r := Request{Query: textindex.Query{Type: typ, Expression: text, Offset: offset}, Shown: text}
	bounded, cut := textindex.BoundQuery(r.Query)
	if cut {
		r.Cut, r.Shown = true, bounded.Expression
	}
	switch {
	case !valid:
		r.Problem, r.BadRequest = problemNotUTF8, true
	case text == "":
		r.Problem = problemEmpty
	case len(textindex.Terms(r.Query)) == 0 && cut && bounded.Expression == "":
		r.Problem = fmt.Sprintf(problemCutToNothing, textindex.MaxQueryBytes>>10, textindex.MaxQueryTerms)
	case len(textindex.Terms(r.Query)) == 0 && bounded.Expression != "":
		r.Problem = problemOnlyNarrow
	case len(textindex.Terms(r.Query)) == 0:
		r.Problem = problemNoLetters
	}
	return r
}

// CutNotice says that the query was cut, and what was searched; "" if it
// was not cut.
func (r Request) CutNotice() string {
	if !r.Cut {
		return ""
	}
	return fmt.Sprintf(cutNoticeFormat, textindex.MaxQueryBytes>>10, textindex.MaxQueryTerms, Quote(r.Shown))
}

// Quote puts a query in quotation marks for a message ("No pages match
// “gopher”."), unless it holds quotation marks of its own, as a phrase
// query does: those delimit it well enough, and more would double them.
func Quote(query string) string {
	if strings.ContainsAny(query, "\"“”") {
		return query
	}
	return "“" + query + "”"
}

// cleanQuery turns control characters, which no term holds, into spaces,
// so that they are neither searched nor echoed (to a terminal, where they
// could be escape sequences); bytes that are not UTF-8 become U+FFFD.
func cleanQuery(q string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, q))
}

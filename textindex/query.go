package textindex

import (
	"fmt"
	"slices"
	"strings"

	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// QueryType selects how the terms of a Query.Expression must occur in a
// document for it to match.
type QueryType uint8

const (
	// QueryTypeMatch matches documents that contain every term of the
	// expression, in any order and at any distance.
	QueryTypeMatch QueryType = iota
	// QueryTypePhrase matches documents that contain the terms of the
	// expression next to each other, in the given order.
	QueryTypePhrase
	// QueryTypeSearch reads the expression as a search box does: words
	// (every one required, in any order), "exact phrases", -word (a
	// document holding it is left out; -"a b" leaves out a and b each),
	// and site:host or site:host:port (see SiteOf; with several, any of
	// them). Repeated words, exclusions and sites count once. An
	// expression with nothing required (only exclusions or sites, or no
	// terms) matches nothing.
	QueryTypeSearch
)

// String returns the name of the query type.
func (t QueryType) String() string {
	switch t {
	case QueryTypeMatch:
		return "match"
	case QueryTypePhrase:
		return "phrase"
	case QueryTypeSearch:
		return "search"
	default:
		return fmt.Sprintf("QueryType(%d)", uint8(t))
	}
}

// Query is a full-text search request.
//
// For match and phrase queries the expression is plain text, never a query
// language; QueryTypeSearch reads the small search-box syntax it documents,
// and nothing else (no boolean operators, no field names, no wildcards).
// Terms are split at every character that is not a letter, digit or
// combining mark, and
// terms are compared case-insensitively but accent-sensitively ("Café"
// matches "café" but not "cafe"). A word matches the other forms of
// itself, those with the same stem in the query's language and the
// document's ("vacuuming" matches "vacuum" and "vacuumed"), and a phrase
// the same stems in the same order; a document holding a word as it was
// asked for ranks above one holding another form of it (Weights.Stem).
// Exclusions (-word in QueryTypeSearch) leave out the word as written. Text without such separators, as is
// common in Chinese or Japanese, forms a single term. An expression without
// any term matches nothing.
//
// A query is bounded, the same in every backend: only its first 4 KB are
// read, a term repeated in a match query counts once, and at most 32 terms
// are used (BoundQuery tells whether a query was cut), so that no query
// costs more than a bounded amount of work.
//
// Results are ordered by score, highest first, where
//
//	score = relevance + prior,  prior = Weights.PageRank × ln(1 + PageRank)
//
// and relevance is the backend's text relevance of the document for the
// query (BM25F for the memory and sqlite backends, ts_rank with field
// weights for postgres), in which a term found in the title or the URL's
// path counts more than one found in the text (see Weights). Documents with equal scores are ordered
// by LinkID, in the link graph's ID order (linkgraph.CompareIDs: byte
// order), so that paging with Offset is stable as long as the
// index does not change between pages. The prior (Weights.Prior) is
// query-independent: with the default weights an average page gets about
// 0.07 and one a hundred times as linked about 0.46, where the text
// relevance of a match is typically 3 to 30, so PageRank orders pages
// whose text scores are close and does not override a clearly better
// match.
type Query struct {
	// Type selects match or phrase semantics.
	Type QueryType
	// Expression is the user's search text.
	Expression string
	// Offset is the number of leading results to skip.
	Offset uint64
	// Weights are the fields' weights in the relevance; the zero value
	// is DefaultWeights.
	Weights Weights
	// Language is the language of the expression as a BCP 47 tag, which
	// decides the stems its words are matched by (see
	// Document.Language); "" is English.
	Language string
	// URLsOnly asks for results that carry their LinkID, URL, PageRank,
	// Relevance, ContentHash and Redirect only, not their title,
	// headings, text or AlsoAt: what a facet of many results counts, without reading every
	// result's stored text. The order and totals are the same.
	URLsOnly bool
}

// The bounds of a query (see Query).
const (
	MaxQueryTerms = terms.MaxQueryTerms
	MaxQueryBytes = terms.MaxQueryBytes
)

// BoundQuery returns q as every backend runs it (see Query: its first
// 4 KB, repeated terms of a match query once, at most 32 terms), and
// whether anything but repetitions was left out, for a caller that tells
// the user.
func BoundQuery(q Query) (Query, bool) {
	if q.Type == QueryTypeSearch {
		s, cut := terms.ParseSearch(q.Expression)
		q.Expression = s.String()
		return q, cut
	}
	words, cut := terms.Query(q.Expression, q.Type == QueryTypePhrase)
	q.Expression = strings.Join(words, " ")
	return q, cut
}

// Terms returns the words a result of q holds: every term of a match or
// phrase query; the words and phrases' words of a search query, not its
// exclusions or sites. It is for marking them in a snippet.
func Terms(q Query) []string {
	if q.Type == QueryTypeSearch {
		s, _ := terms.ParseSearch(q.Expression)
		out := slices.Clone(s.Words)
		for _, p := range s.Phrases {
			out = append(out, p...)
		}
		return out
	}
	words, _ := terms.Query(q.Expression, q.Type == QueryTypePhrase)
	return words
}

// SiteOf returns the site the page at rawURL is on, as a site: operand
// names it: the URL's host, lower-cased, with its port unless that is the
// default of the URL's scheme ("example.com", "127.0.0.1:8081",
// "[::1]:8080"); "" for a URL without a host.
//
// site:host restricts a search to pages on host or one of its subdomains
// (an IP address has none) on the default port of their scheme (80 for
// http, 443 for https); site:host:port to those on that port. A host on
// another port is another site, as the crawl's scope and politeness treat
// it. site: ignores the scheme: site:example.com holds http://example.com/
// and https://example.com/, and site:example.com:443 holds the second
// only. An operand may be a URL ("site:https://example.com:8443/docs" is
// site:example.com:8443); one that names no host, or a port that is not
// one, restricts nothing and is dropped, as the rest of the syntax is.
func SiteOf(rawURL string) string {
	p, ok := terms.PlaceOf(rawURL)
	if !ok {
		return ""
	}
	return p.Site().String()
}

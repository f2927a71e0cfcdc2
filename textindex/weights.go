package textindex

import (
	"errors"
	"fmt"
	"math"

	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// Weights say how much a query term found in each field of a document
// counts toward its relevance. Every backend scores a document as one text
// made of its fields (BM25F, as SQLite FTS5's bm25 with column weights
// does): a term's frequency in the document is the sum of its frequency in
// each field times the field's weight, and the document's length is the
// number of terms in all its fields. So a word of the title counts as
// Title words of the body: the title names what a page is about, where the
// body mentions much besides.
//
// The fields are the title, the words of the URL's path (URLTerms:
// "/docs/sql-vacuum.html" is sql, vacuum, html), the headings and the
// text. The headings being part of the text as well (Document.Headings),
// a word of a heading counts Headings + Body.
//
// A word matches its other forms too ("vacuuming" finds "vacuum" and
// "vacuumed": all have the stem vacuum; see Document.Language and
// Query.Language). A form of the word counts Stem times as much as the
// word as it was asked for (which, having the stem too, counts 1 + Stem),
// so an exact match ranks above a match of another form.
//
// Anchor weighs a page's anchor text (Document.Anchors: what other pages'
// links to it say) as a field scored on its own, BM25 over the anchor text
// of the pages that have some, added to the page's relevance when its
// anchor text holds every word and phrase of the query (in any of its
// texts, as written or in another form). Anchor text
// ranks a page among those that hold the query in their own fields; it
// never makes a page match words it does not hold itself, so that no one
// can make a page found for words by linking to it with them. A query
// word found in the anchor text as written counts Anchor, another form of
// it Stem times that; 0 leaves anchor text out.
//
// PageRank weighs the query-independent part of the score, the prior (see
// Prior): 0 leaves PageRank out.
type Weights struct {
	Title    float64
	URL      float64
	Headings float64
	Body     float64
	Stem     float64
	Anchor   float64
	PageRank float64
}

// Prior returns what a document's PageRank adds to its score:
// w.PageRank × ln(1 + pageRank), pageRank being relative to the average
// page's (1: as linked as the average page; pagerank.Result.Write stores
// it so), and a negative one counting as 0. The logarithm keeps a page
// linked from everywhere from burying better matches: ten times the links
// add ln(10) ≈ 2.3 times the weight, not ten times.
func (w Weights) Prior(pageRank float64) float64 {
	return w.PageRank * math.Log1p(max(pageRank, 0))
}

// DefaultWeights are the weights of a Query that sets none. They were
// chosen on the judged queries of make relevance (README.md): a title word
// counts as 10 words of text, a URL path word as 5, another form of a
// word as a fifth of the word as asked for; anchor text weighs 4 (on the
// rust documentation 3 to 5 rank best, 2 and less worse; on the
// PostgreSQL documentation anything from 0.5 to 10 ranks alike); the
// prior of an average page is 0.1 × ln 2 ≈ 0.07, of a page a hundred times
// as linked about 0.46, where the relevance of a page matching a query is
// typically 3 to 30: PageRank orders pages whose text scores are close.
var DefaultWeights = Weights{Title: 10, URL: 5, Headings: 3, Body: 1, Stem: 0.2, Anchor: 4, PageRank: 0.1}

// ErrInvalidWeights is returned by Search for Weights with a negative,
// infinite or NaN weight, or a body weight of 0 with others set.
var ErrInvalidWeights = errors.New("textindex: invalid field weights")

// WeightsOf returns the weights q is scored with: q.Weights, or
// DefaultWeights when q sets none; an error wrapping ErrInvalidWeights
// for weights that are not finite and non-negative, or all zero but the
// title's or URL's (a body that does not count would leave most documents
// without a score).
func WeightsOf(q Query) (Weights, error) {
	w := q.Weights
	if w == (Weights{}) {
		return DefaultWeights, nil
	}
	for _, v := range []float64{w.Title, w.URL, w.Headings, w.Body, w.Stem, w.Anchor, w.PageRank} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return Weights{}, fmt.Errorf("%w: %+v", ErrInvalidWeights, w)
		}
	}
	if w.Body == 0 {
		return Weights{}, fmt.Errorf("%w: the body's weight is 0 (%+v)", ErrInvalidWeights, w)
	}
	return w, nil
}

// URLTerms returns the terms of a URL's path, the URL field of a
// document: its path, percent-decoded, split and folded as text is
// ("https://example.com/docs/sql-vacuum.html" gives docs, sql, vacuum,
// html). The host is left out (every page of a site would share it), and
// so are the query and fragment.
func URLTerms(rawURL string) []string { return terms.URLTerms(rawURL) }

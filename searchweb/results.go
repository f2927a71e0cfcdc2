package searchweb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/simhash"
)

// Result is one search result of a Page.
type Result struct {
	// Rank is the result's place in the index's order of the query's
	// results (score, highest first), from 1.
	Rank uint64 `json:"rank"`
	URL  string `json:"url"`
	// Title is the page's title; "" when it has none (a page shows the
	// URL instead).
	Title string `json:"title"`
	// Snippet is the stretch of the page's text with the most of the
	// query's words, which it marks (textindex.MakeSnippet).
	Snippet textindex.Snippet `json:"snippet"`
	Indexed time.Time         `json:"indexed_at"`
	// Score = Relevance + Prior, the order of the results: Relevance is
	// the text's, Prior what PageRank adds (textindex.Weights.Prior).
	Relevance float64 `json:"relevance"`
	PageRank  float64 `json:"pagerank"`
	Prior     float64 `json:"prior"`
	Score     float64 `json:"score"`
	// Fields are the fields of the page that hold a word of the query
	// (textindex.MatchedFields): title, url, body, anchor.
	Fields []string `json:"fields,omitempty"`
	// Host is the site the result is on, as site: names it: its host,
	// with the port unless it is the scheme's default.
	Host string `json:"host"`
	// AlsoAt are the other URLs of the same text (duplicates and
	// redirects), which the index shows as this one result.
	AlsoAt []string `json:"also_at,omitempty"`
	// NearDuplicates are the results further down the same page whose
	// text is nearly this one's (simhash within simhash.Threshold bits),
	// shown under it instead of as results of their own.
	NearDuplicates []NearDuplicate `json:"near_duplicates,omitempty"`
}

// NearDuplicate is a result folded under another as its near-duplicate.
type NearDuplicate struct {
	Rank  uint64 `json:"rank"`
	URL   string `json:"url"`
	Title string `json:"title"`
}

// PageOptions say which page of results Results builds.
type PageOptions struct {
	// Limit is the number of results a page shows, not counting the
	// near-duplicates folded under them. Default: DefaultPageSize.
	Limit int
	// Number is the page's number: 1 for the page starting at the
	// query's Offset, n for the page reached from there by going to the
	// next page n-1 times. Default: 1.
	Number int
	// SnippetWidth is the length of a snippet in bytes (see
	// textindex.MakeSnippet). Default: DefaultSnippetWidth.
	SnippetWidth int
}

// DefaultSnippetWidth is the snippet length of PageOptions, in bytes.
const DefaultSnippetWidth = 220

// maxReadFactor bounds the results a page reads to fill its Limit when
// near-duplicates are folded: at most this many per place (see Results).
const maxReadFactor = 5

// Page is a page of search results, as Results builds it.
type Page struct {
	// Number is PageOptions.Number (1 when it was 0).
	Number int
	// Offset is how many results come before the page: its results'
	// ranks start at Offset+1.
	Offset uint64
	// Results are the page's results, in rank order, each with the
	// near-duplicates folded under it; empty past the last page.
	Results []Result
	// Read is how many results the page read: its Results and the
	// near-duplicates folded under them, ranks Offset+1 to Offset+Read.
	Read uint64
	// Total is how many results the query has in all, from the first.
	Total uint64
	// More reports that results follow the page: Next is the Offset of
	// the next page.
	More bool
	// KnownPages is how many pages, counted from the query's Offset, are
	// known to hold results: up to the next page (Number+1) while More,
	// and all of them once reading reached the end.
	KnownPages int
}

// Next is where the next page starts: the Offset of the query that
// Results pages on with, the first result this page did not read.
func (p Page) Next() uint64 { return p.Offset + p.Read }

// Results reads the page of q's results that opts asks for from index,
// for `linksrus search`, the search page and its API alike.
//
// A page shows up to opts.Limit results. A result whose text is nearly
// that of a result above it on the page (simhash.Folder) is folded under
// the first of them instead of taking a place of its own, so that a page
// of ten results is ten texts, not one text ten times. To fill its
// places a page reads on past the results it folds, and past the
// near-duplicates that directly follow its last result (they are folded
// too, rather than open the next page), up to 5×Limit results in all (so
// that a query whose results are all one text still answers in bounded
// time, with fewer results shown); the next page starts where it stopped
// reading (Page.Next). Going from page to page thus shows every result
// exactly once: as a result, or folded under one on its page. A
// near-duplicate of a result on an earlier page is a result of its own.
//
// Where a page stops reading depends on the folding in it, so the n-th
// page cannot start at (n-1)×Limit: it starts where the page before it
// stopped. Results finds it by reading the n-1 pages before it (without
// their snippets), so that numbered pages are exact (the search page's
// page 3 is what `linksrus search --offset` reaches after two Next
// offsets), at the cost of reading the results before the page (in the
// embedded index, some 130 ms more for page 100 of ten than for page 1);
// ctx bounds it. How many pages follow is not known until reading
// reaches them (Page.KnownPages).
func Results(ctx context.Context, index Searcher, q textindex.Query, opts PageOptions) (Page, error) {
	if opts.Limit < 0 || opts.Number < 0 || opts.SnippetWidth < 0 {
		return Page{}, errors.New("searchweb: results: negative Limit, Number or SnippetWidth")
	}
	if opts.Limit == 0 {
		opts.Limit = DefaultPageSize
	}
	if opts.Number == 0 {
		opts.Number = 1
	}
	if opts.SnippetWidth == 0 {
		opts.SnippetWidth = DefaultSnippetWidth
	}
	weights, err := textindex.WeightsOf(q)
	if err != nil {
		return Page{}, fmt.Errorf("searchweb: results: %w", err)
	}
	it, err := index.SearchContext(ctx, q)
	if err != nil {
		return Page{}, fmt.Errorf("searchweb: results: %w", err)
	}
	defer it.Close()

	p := Page{Number: opts.Number, Offset: q.Offset, Results: []Result{}}
	r := pageReader{it: it, q: q, weights: weights, limit: opts.Limit, width: opts.SnippetWidth}
	full := 0 // pages read that hold results
	for n := 1; n <= opts.Number && !r.ended; n++ {
		last := n == opts.Number
		results, read := r.page(p.Offset, last)
		if len(results) > 0 {
			full++
		}
		if last {
			p.Results, p.Read = results, read
		} else {
			p.Offset += read
		}
	}
	if err := it.Error(); err != nil {
		return Page{}, fmt.Errorf("searchweb: results: %w", err)
	}
	p.Total = it.TotalCount()
	p.More = r.pending != nil || !r.ended && p.Next() < p.Total
	p.KnownPages = full
	if p.More {
		p.KnownPages = p.Number + 1
	}
	return p, nil
}

// pageReader reads pages of results one after the other from an
// iterator.
type pageReader struct {
	it           textindex.Iterator
	q            textindex.Query
	weights      textindex.Weights // q's, for the prior
	limit, width int
	// pending is the result read past the end of the last page, the first
	// of the next one.
	pending *textindex.Document
	// ended reports that it has no more results.
	ended bool
}

// next returns the next result, or false at the end.
func (r *pageReader) next() (*textindex.Document, bool) {
	if d := r.pending; d != nil {
		r.pending = nil
		return d, true
	}
	if r.ended || !r.it.Next() {
		r.ended = true
		return nil, false
	}
	return r.it.Document(), true
}

// page reads the page that starts after offset results (see Results):
// its results, and how many results it read. The snippets are made only
// when snippets is set.
func (r *pageReader) page(offset uint64, snippets bool) (results []Result, read uint64) {
	results = []Result{}
	var fold simhash.Folder // results[i]'s fingerprint is its i-th
	for read < uint64(r.limit)*maxReadFactor {
		d, ok := r.next()
		if !ok {
			break
		}
		rank := offset + read + 1
		if n := fold.Fold(simhash.OfPage(d.Title, d.Content)); n >= 0 {
			results[n].NearDuplicates = append(results[n].NearDuplicates, NearDuplicate{Rank: rank, URL: d.URL, Title: d.Title})
			read++
			continue
		}
		if len(results) == r.limit {
			// The first result not near one of a full page's: the next
			// page's first.
			r.pending = d
			break
		}
		read++
		res := Result{
			Rank:      rank,
			URL:       d.URL,
			Title:     d.Title,
			Indexed:   d.IndexedAt,
			Relevance: d.Relevance,
			PageRank:  d.PageRank,
			Prior:     r.weights.Prior(d.PageRank),
			Score:     d.Relevance + r.weights.Prior(d.PageRank),
			Host:      textindex.SiteOf(d.URL),
			AlsoAt:    d.AlsoAt,
		}
		if snippets {
			res.Snippet = textindex.MakeSnippet(d.Content, r.q, r.width)
			res.Fields = textindex.MatchedFields(r.q, d)
		}
		results = append(results, res)
	}
	return results, read
}

package relevance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/linksrus/linksrus/crawler/urlnorm"
	"github.com/linksrus/linksrus/searchweb"
	"github.com/linksrus/linksrus/textindex"
)

// Options say how Evaluate searches and what the judged pages are
// relative to.
type Options struct {
	// Base is the URL the judged pages are references relative to: the
	// root of the crawled corpus ("http://127.0.0.1:8081/"). Each page is
	// resolved against it as the crawler resolves a link and compared in
	// the crawler's normal form (urlnorm, default options). Required.
	Base string
	// PageSize is the number of results on the page of results that is
	// judged. Default: searchweb.DefaultPageSize (10), the first page a
	// user sees.
	PageSize int
	// Timeout bounds each query's search; 0: only ctx bounds it.
	Timeout time.Duration
	// Weights are the fields' weights every query is searched with
	// (textindex.Query.Weights); the zero value is the index's default.
	Weights textindex.Weights
}

// Outcome is what a judged query found.
type Outcome struct {
	Judgment
	// Place is the place on the page of results (from 1, counting the
	// results shown, not the near-duplicates folded under them) of the
	// first result that is a page answering the query, at its own URL,
	// one of its AlsoAt URLs or as a near-duplicate folded under it; 0
	// when none is on the page.
	Place int
	// Found is the answering URL at Place; "" when Place is 0.
	Found string
	// Folded reports that Found is a near-duplicate folded under the
	// result at Place rather than the result itself.
	Folded bool
	// Results are the URLs of the page's results, in order.
	Results []string
	// Total is how many results the query has in all.
	Total uint64
}

// Evaluate runs each judged query through searchweb.Results, as the search
// page and `linksrus search` run it (read by searchweb.ReadQuery, in the
// search box's syntax, near-duplicates folded), and returns where the
// first page answering it stands on the first page of results. A judged
// query that cannot be searched (ReadQuery reports a problem) or a page
// that does not resolve against opts.Base is an error naming its line,
// found before any query is run; so is a search that fails.
func Evaluate(ctx context.Context, index searchweb.Searcher, set []Judgment, opts Options) ([]Outcome, error) {
	if opts.Base == "" {
		return nil, errors.New("relevance: evaluate: no Base to resolve the judged pages against")
	}
	if opts.PageSize < 0 || opts.Timeout < 0 {
		return nil, errors.New("relevance: evaluate: negative PageSize or Timeout")
	}
	if opts.PageSize == 0 {
		opts.PageSize = searchweb.DefaultPageSize
	}
	base, err := urlnorm.Normalize(opts.Base, urlnorm.Options{})
	if err != nil {
		return nil, fmt.Errorf("relevance: evaluate: base: %w", err)
	}
	reqs := make([]searchweb.Request, len(set))
	accept := make([]map[string]bool, len(set))
	for i, j := range set {
		reqs[i] = searchweb.ReadQuery(j.Query, textindex.QueryTypeSearch, 0)
		if reqs[i].Problem != "" {
			return nil, fmt.Errorf("relevance: line %d: %q: %s", j.Line, j.Query, reqs[i].Problem)
		}
		accept[i] = make(map[string]bool, len(j.Pages))
		for _, p := range j.Pages {
			u, err := urlnorm.Resolve(base, p, urlnorm.Options{})
			if err != nil {
				return nil, fmt.Errorf("relevance: line %d: %w", j.Line, err)
			}
			accept[i][u] = true
		}
	}
	out := make([]Outcome, len(set))
	for i, j := range set {
		q := reqs[i].Query
		q.Weights = opts.Weights
		o, err := evaluateOne(ctx, index, q, accept[i], opts)
		if err != nil {
			return nil, fmt.Errorf("relevance: line %d: %q: %w", j.Line, j.Query, err)
		}
		o.Judgment = j
		out[i] = o
	}
	return out, nil
}

func evaluateOne(ctx context.Context, index searchweb.Searcher, q textindex.Query, accept map[string]bool, opts Options) (Outcome, error) {
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	page, err := searchweb.Results(ctx, index, q, searchweb.PageOptions{Limit: opts.PageSize})
	if err != nil {
		return Outcome{}, err
	}
	o := Outcome{Total: page.Total, Results: make([]string, len(page.Results))}
	for i, r := range page.Results {
		o.Results[i] = r.URL
		if o.Place > 0 {
			continue
		}
		found, folded := answering(r, accept)
		if found != "" {
			o.Place, o.Found, o.Folded = i+1, found, folded
		}
	}
	return o, nil
}

// answering returns the URL of r that accept holds, if any: its own, one
// of its AlsoAt, or that of a near-duplicate folded under it (folded).
func answering(r searchweb.Result, accept map[string]bool) (found string, folded bool) {
	if accept[r.URL] {
		return r.URL, false
	}
	for _, u := range r.AlsoAt {
		if accept[u] {
			return u, false
		}
	}
	for _, n := range r.NearDuplicates {
		if accept[n.URL] {
			return n.URL, true
		}
	}
	return "", false
}

// Places returns the Place of each outcome, for MRR, SuccessAt and
// Summarize.
func Places(outcomes []Outcome) []int {
	p := make([]int, len(outcomes))
	for i, o := range outcomes {
		p[i] = o.Place
	}
	return p
}

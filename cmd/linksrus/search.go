package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/searchweb"
	"github.com/linksrus/linksrus/textindex"
)

// searchResult is one result of --json (a searchweb.Result with its
// snippet as text): Score = Relevance + Prior, the order of the results,
// Prior being what PageRank adds (textindex.Weights.Prior).
type searchResult struct {
	Rank      uint64  `json:"rank"`
	URL       string  `json:"url"`
	Title     string  `json:"title"`
	Snippet   string  `json:"snippet"`
	Relevance float64 `json:"relevance"`
	PageRank  float64 `json:"pagerank"`
	Prior     float64 `json:"prior"`
	Score     float64 `json:"score"`
	// Fields are where the page holds the query's words: title, url,
	// headings, body, anchor (the words of other pages' links to it).
	Fields []string `json:"fields,omitempty"`
	// AlsoAt are the URLs with the same text (duplicates, redirects),
	// which the index shows as this one result.
	AlsoAt []string `json:"also_at,omitempty"`
	// NearDuplicates are later results whose text is nearly the same
	// (simhash within simhash.Threshold bits), folded into this one.
	NearDuplicates []searchweb.NearDuplicate `json:"near_duplicates,omitempty"`
}

// snippetWidth is the length of a snippet in bytes: two lines of a
// terminal.
const snippetWidth = 160

func runSearch(ctx context.Context, env *environment, args []string) error {
	fs := newFlagSet(env, "search", "search [flags] QUERY")
	var sf storeFlags
	sf.register(fs, env)
	asJSON := fs.Bool("json", false, "print the results as one JSON object")
	limit := fs.Int("limit", 10, "print at most `N` results")
	offset := fs.Int64("offset", 0, "skip the first `N` results (for paging)")
	phrase := fs.Bool("phrase", false, "match the whole query as one exact phrase (without it: words, \"phrases\", -word and site:host)")
	timeout := fs.Duration("timeout", 10*time.Second, "give up on a search that takes longer than `D`")
	lang := fs.String("lang", "", "the query's language, a BCP 47 `TAG` (en, fr, es, ru, ...): its words also find their other forms as that language forms them (default English)")
	words, err := parseFlags(env, fs, args)
	if err != nil {
		return err
	}
	if strings.TrimSpace(strings.Join(words, " ")) == "" {
		return usageError(env, fs, "a query is required")
	}
	if *limit <= 0 {
		return usageError(env, fs, "--limit must be positive, got %d", *limit)
	}
	if *offset < 0 {
		return usageError(env, fs, "--offset must be a whole number of results to skip (0 or more), got %d", *offset)
	}
	if *timeout <= 0 {
		return usageError(env, fs, "--timeout must be positive, got %v", *timeout)
	}
	if sf.index == "none" {
		return usageError(env, fs, "--index none: there is no index to search")
	}
	if !searchweb.ValidLanguage(*lang) {
		return usageError(env, fs, "--lang must be a language tag such as fr or pt-BR, got %q", *lang)
	}
	typ := textindex.QueryTypeSearch
	if *phrase {
		typ = textindex.QueryTypePhrase
	}
	// The query is read as the search page reads it, and told about in
	// the same words.
	req := searchweb.ReadQuery(strings.Join(words, " "), typ, uint64(*offset))
	if req.Problem != "" {
		return usageError(env, fs, "%s", req.Problem)
	}
	query := req.Shown

	// The index alone, read-only: a search works while a crawl writes to
	// the same data directory, whose graph it holds locked. A directory
	// with a graph and no index was crawled with --index none; one with
	// neither is told so by openIndexForReading.
	if sf.index == "" && !exists(filepath.Join(sf.data, "index.db")) && exists(filepath.Join(sf.data, "graph.db")) {
		fmt.Fprintf(env.stdout, "No pages match %s: %s holds no index.\n", searchweb.Quote(query), sf.data)
		fmt.Fprintln(env.stdout, "The pages were crawled with --index none: "+
			"'linksrus crawl --recrawl-after 1s URL' fetches and indexes them again.")
		return nil
	}
	index, err := openIndexForReading(ctx, &sf)
	if err != nil {
		return err
	}
	defer index.Close()

	q := req.Query
	q.Language = *lang
	searchCtx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	page, err := searchweb.Results(searchCtx, contextSearcher{index}, q, searchweb.PageOptions{Limit: *limit, SnippetWidth: snippetWidth})
	if err != nil {
		return searchError(err, *timeout)
	}
	results := make([]searchResult, len(page.Results))
	for i, r := range page.Results {
		results[i] = searchResult{Rank: r.Rank, URL: r.URL, Title: r.Title, Snippet: r.Snippet.String(),
			Relevance: r.Relevance, PageRank: r.PageRank, Prior: r.Prior, Score: r.Score, Fields: r.Fields, AlsoAt: r.AlsoAt, NearDuplicates: r.NearDuplicates}
	}
	folded := page.Read - uint64(len(results))
	total := page.Total
	var next uint64 // the --offset of the next page; 0: none
	if page.More {
		next = page.Next()
	}

	if *asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		// query is as searched: a long query's first 4 KB, not all of it.
		return enc.Encode(struct {
			Query   string         `json:"query"`
			Cut     bool           `json:"query_cut,omitempty"`
			Total   uint64         `json:"total"`
			Offset  uint64         `json:"offset"`
			Results []searchResult `json:"results"`
			Next    uint64         `json:"next_offset,omitempty"`
		}{query, req.Cut, total, q.Offset, results, next})
	}
	if req.Cut {
		fmt.Fprintf(env.stdout, "%s\n\n", req.CutNotice())
	}
	if total == 0 {
		fmt.Fprintf(env.stdout, "No pages match %s.\n", searchweb.Quote(query))
		if note := indexNoteIfFree(ctx, &sf, index); note != "" {
			fmt.Fprintln(env.stdout, note)
		}
		return nil
	}
	if len(results) == 0 {
		fmt.Fprintf(env.stdout, "No results past %d: %d pages match %s.\n", q.Offset, total, searchweb.Quote(query))
		return nil
	}
	for _, r := range results {
		title := r.Title
		if title == "" {
			title = r.URL
		}
		fmt.Fprintf(env.stdout, "%d. %s\n   %s\n", r.Rank, title, r.URL)
		if r.Snippet != "" {
			fmt.Fprintf(env.stdout, "   %s\n", r.Snippet)
		}
		for _, u := range r.AlsoAt {
			fmt.Fprintf(env.stdout, "   also at %s\n", u)
		}
		for _, n := range r.NearDuplicates {
			fmt.Fprintf(env.stdout, "   nearly the same: %d. %s\n", n.Rank, n.URL)
		}
		fmt.Fprintln(env.stdout)
	}
	fmt.Fprintf(env.stdout, "Results %d-%d of %d", q.Offset+1, page.Next(), total)
	if folded > 0 {
		fmt.Fprintf(env.stdout, " (%d near-duplicates shown under another result)", folded)
	}
	fmt.Fprintln(env.stdout, ".")
	if next > 0 {
		fmt.Fprintf(env.stdout, "Next: --offset %d\n", next)
	}
	return nil
}

// contextSearcher searches an index with textindex.SearchContext, which
// also takes an index that cannot stop a search it has started.
type contextSearcher struct{ textindex.Indexer }

func (s contextSearcher) SearchContext(ctx context.Context, q textindex.Query) (textindex.Iterator, error) {
	return textindex.SearchContext(ctx, s.Indexer, q)
}

// searchError says what stopped a search, in words for a deadline.
func searchError(err error, timeout time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("search: gave up after --timeout %v (a narrower query, or a longer --timeout, may answer)", timeout)
	}
	return fmt.Errorf("search: %w", err)
}

// indexNoteIfFree is indexNote when the graph can be opened; a graph held
// by a running crawl is not waited for: the note is a hint, not the answer.
// An embedded graph that does not exist is not created for it.
func indexNoteIfFree(ctx context.Context, sf *storeFlags, idx textindex.Indexer) string {
	if sf.graph == "" && !exists(filepath.Join(sf.data, "graph.db")) {
		return ""
	}
	gu, err := sf.graphURL()
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	g, err := linkgraph.Open(ctx, gu)
	if err != nil {
		return ""
	}
	defer g.Close()
	return indexNote(g, idx)
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/pagerank"
	"github.com/linksrus/linksrus/searchweb/relevance"
	"github.com/linksrus/linksrus/textindex"
)

// evalOptions are the eval command's flags.
type evalOptions struct {
	stores       storeFlags
	judged       string
	base         string
	asJSON       bool
	timeout      time.Duration
	crawl        string
	allowNets    stringList
	ignoreRobots bool
	workers      int
	weights      weightsFlag
}

// runEval measures the ranking on a judged set: each judged query is
// searched as `linksrus search` and the search page search it, and the
// place of the first page that answers it is reported, with MRR@10,
// success@1 and success@3. With --crawl it first crawls the corpus into
// the stores, in this process, so that an in-memory index can be measured
// too.
func runEval(ctx context.Context, env *environment, args []string) error {
	fs := newFlagSet(env, "eval", "eval --judged FILE [--base URL] [--crawl URL] [flags]")
	var o evalOptions
	o.stores.register(fs, env)
	fs.StringVar(&o.judged, "judged", "", "the judged set: a `FILE` of lines \"query<TAB>page page...\", the pages that answer the query")
	fs.StringVar(&o.base, "base", "", "the `URL` the judged pages are relative to, the corpus root (default: the --crawl URL)")
	fs.BoolVar(&o.asJSON, "json", false, "print each query's outcome and the scores as one JSON object")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "give up on a query whose search takes longer than `D`")
	fs.StringVar(&o.crawl, "crawl", "", "first crawl from this seed `URL` into the stores (as 'linksrus crawl' does), then evaluate")
	fs.Var(&o.allowNets, "allow-net", "with --crawl: let the crawler reach this private network `CIDR`, e.g. 127.0.0.0/8 for a local copy of a site (repeatable)")
	fs.BoolVar(&o.ignoreRobots, "ignore-robots", false, "with --crawl: do not fetch or obey robots.txt")
	fs.IntVar(&o.workers, "workers", 0, "with --crawl: fetch `N` pages at once (default: the crawl command's)")
	fs.Var(&o.weights, "weights", "search with these `WEIGHTS` of the fields and of PageRank, e.g. title=10,url=5,body=1,pagerank=1 (textindex.Weights; a weight left out is the default's), to tune them on the judged set")
	rest, err := parseFlags(env, fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(rest) > 0:
		return usageError(env, fs, "unexpected arguments: %v", rest)
	case o.judged == "":
		return usageError(env, fs, "--judged FILE is required: the judged queries to evaluate")
	case o.base == "" && o.crawl == "":
		return usageError(env, fs, "--base URL is required without --crawl: the corpus root the judged pages are relative to")
	case o.timeout <= 0:
		return usageError(env, fs, "--timeout must be positive, got %v", o.timeout)
	case o.stores.index == "none":
		return usageError(env, fs, "--index none: there is no index to evaluate")
	case o.crawl == "" && (len(o.allowNets) > 0 || o.ignoreRobots || o.workers != 0):
		return usageError(env, fs, "--allow-net, --ignore-robots and --workers apply to --crawl, which is not given")
	case o.workers < 0:
		return usageError(env, fs, "--workers must be at least 1, got %d", o.workers)
	}
	baseFlag := "--base"
	if o.base == "" {
		o.base, baseFlag = o.crawl, "--crawl"
	}
	// The judged pages are resolved against the root as the crawler
	// spells it (relevance.Options.Base).
	if _, err := (crawler.FetchOptions{}).Normalize(o.base); err != nil {
		return usageError(env, fs, "%s: %v", baseFlag, err)
	}
	// The judged set is read before anything is crawled: a mistake in it
	// is found in a second, not after the crawl.
	set, err := relevance.ReadFile(o.judged)
	if err != nil {
		return err
	}

	var index textindex.Indexer
	if o.crawl != "" {
		cfg, err := o.crawlConfig(env)
		if err != nil {
			return usageError(env, fs, "%v", err)
		}
		st, err := openStores(ctx, &o.stores, true, true)
		if err != nil {
			return err
		}
		defer st.Close()
		if err := evalCrawl(ctx, env, cfg, st); err != nil {
			return err
		}
		index = st.index
	} else {
		if index, err = openIndexForReading(ctx, &o.stores); err != nil {
			return err
		}
		defer index.Close()
	}

	outcomes, err := relevance.Evaluate(ctx, contextSearcher{index}, set, relevance.Options{Base: o.base, Timeout: o.timeout, Weights: textindex.Weights(o.weights)})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("eval: a search gave up after --timeout %v: %w", o.timeout, err)
		}
		return fmt.Errorf("eval: %w", err)
	}
	scores := relevance.Summarize(relevance.Places(outcomes))
	if note := baseNote(outcomes, o.base); note != "" {
		fmt.Fprintf(env.stderr, "linksrus eval: %s\n", note)
	}
	if o.asJSON {
		return printEvalJSON(env.stdout, o, outcomes, scores)
	}
	printEval(env.stdout, o.base, outcomes, scores)
	return nil
}

// crawlConfig is the crawl command's configuration for the --crawl seed:
// its defaults, with the eval command's crawl flags and stores.
func (o *evalOptions) crawlConfig(env *environment) (*crawlConfig, error) {
	var co crawlOptions
	co.register(flag.NewFlagSet("crawl", flag.ContinueOnError), env)
	co.stores = o.stores
	co.allowNets = o.allowNets
	co.ignoreRobots = o.ignoreRobots
	if o.workers > 0 {
		co.workers = o.workers
	}
	cfg, err := co.parse([]string{o.crawl})
	if err != nil {
		return nil, fmt.Errorf("--crawl: %w", err)
	}
	if err := cfg.engineOptions(nil, nil, nil).Check(); err != nil {
		return nil, flagError(err)
	}
	return cfg, nil
}

// evalCrawl crawls cfg's seed into st as `linksrus crawl` does (with a
// PostgreSQL graph, as one process of a shared crawl), and ranks a graph
// the crawl does not rank itself, as `linksrus rank` would: the ranking
// measured is the one a user of those stores gets. What the crawl says
// goes to stderr, so that stdout is the evaluation.
func evalCrawl(ctx context.Context, env *environment, cfg *crawlConfig, st *stores) error {
	cenv := *env
	cenv.stdout = env.stderr
	if err := crawlOnce(ctx, &cenv, cfg, st, newService(&cenv)); err != nil {
		return err
	}
	if cfg.opts.stores.embeddedGraph() {
		return nil // ranked by crawlOnce
	}
	_, err := rank(ctx, &cenv, st, pagerank.DefaultMemoryLimit)
	return err
}

// evalQuery is one query's outcome in --json.
type evalQuery struct {
	Line  int    `json:"line"`
	Query string `json:"query"`
	// Place is where the first page that answers the query stands on the
	// first page of results, from 1; 0 when it is not there.
	Place  int    `json:"place"`
	Found  string `json:"found,omitempty"`
	Folded bool   `json:"folded,omitempty"`
	// Results are the page's results, for a look at what came first.
	Results []string `json:"results"`
	Total   uint64   `json:"total"`
}

func printEvalJSON(w io.Writer, o evalOptions, outcomes []relevance.Outcome, s relevance.Scores) error {
	qs := make([]evalQuery, len(outcomes))
	for i, oc := range outcomes {
		qs[i] = evalQuery{Line: oc.Line, Query: oc.Query, Place: oc.Place, Found: oc.Found, Folded: oc.Folded, Results: oc.Results, Total: oc.Total}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Judged string `json:"judged"`
		Base   string `json:"base"`
		relevance.Scores
		Outcomes []evalQuery `json:"outcomes"`
	}{o.judged, o.base, s, qs})
}

// printEval prints a line a query, its place ("-": not on the first page)
// and what stood first when it was not the answer, then the scores.
func printEval(w io.Writer, base string, outcomes []relevance.Outcome, s relevance.Scores) {
	root, _ := crawler.FetchOptions{}.Normalize(base)
	if i := strings.LastIndexByte(root, '/'); i >= 0 {
		root = root[:i+1]
	}
	short := func(u string) string {
		if strings.HasPrefix(u, root) && len(u) > len(root) {
			return u[len(root):]
		}
		return u
	}
	width := len("query")
	for _, oc := range outcomes {
		width = max(width, min(len(oc.Query), 40))
	}
	fmt.Fprintf(w, "%-5s  %-*s  %s\n", "place", width, "query", "found (first result when it is not the answer)")
	for _, oc := range outcomes {
		place, what := "-", ""
		if oc.Place > 0 {
			place, what = fmt.Sprint(oc.Place), short(oc.Found)
			if oc.Folded {
				what += " (folded under " + short(oc.Results[oc.Place-1]) + ")"
			}
		}
		if oc.Place != 1 {
			first := "no results"
			if len(oc.Results) > 0 {
				first = "first: " + short(oc.Results[0])
			}
			what = strings.TrimSpace(what + " (" + first + ")")
		}
		fmt.Fprintf(w, "%-5s  %-*s  %s\n", place, width, oc.Query, what)
	}
	fmt.Fprintln(w, s)
}

// baseNote says, when no query's results hold a URL under --base, that the
// judged pages are probably relative to another root than the one given,
// or that the index holds another site: the scores are then 0 for a
// reason other than the ranking.
func baseNote(outcomes []relevance.Outcome, base string) string {
	root, err := crawler.FetchOptions{}.Normalize(base)
	if err != nil {
		return ""
	}
	if i := strings.LastIndexByte(root, '/'); i >= 0 {
		root = root[:i+1]
	}
	for _, oc := range outcomes {
		if oc.Place > 0 {
			return ""
		}
		for _, u := range oc.Results {
			if strings.HasPrefix(u, root) {
				return ""
			}
		}
	}
	return fmt.Sprintf("no result of any judged query is under --base %s: the index holds another site, or --base is not the root the judged pages are relative to", base)
}

// weightsFlag is a --weights value: name=weight pairs separated by
// commas, of the fields title, url, headings and body, of a word's other
// forms, stem, of anchor text, anchor, and of the prior, pagerank; a
// weight left out is textindex.DefaultWeights'.
type weightsFlag textindex.Weights

func (w *weightsFlag) String() string {
	if w == nil || *w == (weightsFlag{}) {
		return ""
	}
	return fmt.Sprintf("title=%g,url=%g,headings=%g,body=%g,stem=%g,anchor=%g,pagerank=%g", w.Title, w.URL, w.Headings, w.Body, w.Stem, w.Anchor, w.PageRank)
}

func (w *weightsFlag) Set(v string) error {
	out := textindex.DefaultWeights
	for pair := range strings.SplitSeq(v, ",") {
		name, num, ok := strings.Cut(strings.TrimSpace(pair), "=")
		f, err := strconv.ParseFloat(num, 64)
		if !ok || err != nil {
			return fmt.Errorf("%q is not name=weight (title=10,url=5,body=1,pagerank=1)", pair)
		}
		switch name {
		case "title":
			out.Title = f
		case "url":
			out.URL = f
		case "headings":
			out.Headings = f
		case "body":
			out.Body = f
		case "stem":
			out.Stem = f
		case "anchor":
			out.Anchor = f
		case "pagerank":
			out.PageRank = f
		default:
			return fmt.Errorf("unknown weight %q: the weights are title, url, headings, body, stem, anchor and pagerank", name)
		}
	}
	if _, err := textindex.WeightsOf(textindex.Query{Weights: out}); err != nil {
		return err
	}
	*w = weightsFlag(out)
	return nil
}

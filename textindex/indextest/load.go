package indextest

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/linksrus/linksrus/textindex"
)

// LoadResult is what Load measured.
type LoadResult struct {
	Docs    int
	Indexed time.Duration // all documents, in batches
	Anchors time.Duration // UpdateAnchors once they are in
	// Latencies of reading a query's first result page and total: the
	// search benchmark's mix of queries (narrow, most of them), and
	// single words among the corpus's most frequent (broad: each in
	// about half of the documents or more).
	Mixed, Broad Latency
}

// Latency is the median and 99th percentile of a set of timings.
type Latency struct {
	Queries  int
	P50, P99 time.Duration
	Hits     float64 // results per query, on average
}

func (r LoadResult) String() string {
	return fmt.Sprintf("%d documents in %v (%.0f docs/s), anchor text in %v; mixed queries (%d): p50 %v, p99 %v, %.0f hits each; broad (%d): p50 %v, p99 %v, %.0f hits each",
		r.Docs, r.Indexed.Round(time.Millisecond), float64(r.Docs)/r.Indexed.Seconds(), r.Anchors.Round(time.Millisecond),
		r.Mixed.Queries, r.Mixed.P50.Round(time.Millisecond), r.Mixed.P99.Round(time.Millisecond), r.Mixed.Hits,
		r.Broad.Queries, r.Broad.P50.Round(time.Millisecond), r.Broad.P99.Round(time.Millisecond), r.Broad.Hits)
}

// LoadIndexer is an index Load can fill: in batches, as a crawl writes.
type LoadIndexer interface {
	textindex.Indexer
	textindex.BatchIndexer
}

// Load indexes n generated documents into idx, as a crawl of that many
// pages would (the search benchmark's corpus: Zipf-distributed words,
// each document linking to benchLinks earlier ones with words of their
// titles), in batches of BenchBatchSize by GOMAXPROCS writers, then
// computes the anchor text and times mixed and broad searches (see
// LoadResult). The documents are made as they are written, so memory
// stays small whatever n is.
func Load(ctx context.Context, idx LoadIndexer, n, mixed, broad int) (LoadResult, error) {
	res := LoadResult{Docs: n}
	c := newCorpus(3)
	batches := make(chan []*textindex.Document, runtime.GOMAXPROCS(0))
	titles := make([]string, 0, n) // of the documents made so far, for links
	sample := make([]*textindex.Document, 0, 1000)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(batches)
		for lo := 0; lo < n; lo += BenchBatchSize {
			batch := make([]*textindex.Document, 0, BenchBatchSize)
			for i := lo; i < min(lo+BenchBatchSize, n); i++ {
				d := c.doc(i)
				if i > 0 {
					d.Links = make([]textindex.Link, benchLinks)
					for k := range d.Links {
						to := c.links.IntN(i)
						words := strings.Fields(titles[to])
						d.Links[k] = textindex.Link{URL: fmt.Sprintf("https://example.com/page/%d", to),
							Text: strings.Join(words[:min(len(words), 1+c.links.IntN(3))], " ")}
					}
				}
				titles = append(titles, d.Title)
				if i%max(n/cap(sample), 1) == 0 && len(sample) < cap(sample) {
					sample = append(sample, d)
				}
				batch = append(batch, d)
			}
			select {
			case batches <- batch:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	start := time.Now()
	for range runtime.GOMAXPROCS(0) {
		g.Go(func() error {
			for batch := range batches {
				if err := idx.IndexBatch(batch); err != nil {
					return fmt.Errorf("index: %w", err)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return res, err
	}
	res.Indexed = time.Since(start)
	start = time.Now()
	if err := idx.UpdateAnchors(ctx); err != nil {
		return res, fmt.Errorf("anchor text: %w", err)
	}
	res.Anchors = time.Since(start)

	queries := newCorpus(2).queries(mixed, sample)
	var err error
	if res.Mixed, err = timeQueries(ctx, idx, queries); err != nil {
		return res, err
	}
	top := make([]textindex.Query, broad)
	for i := range top {
		top[i] = textindex.Query{Expression: c.vocab[i%10]} // Zipf's most frequent ten
	}
	res.Broad, err = timeQueries(ctx, idx, top)
	return res, err
}

// timeQueries reads the first result page and total of each query.
func timeQueries(ctx context.Context, idx textindex.Indexer, queries []textindex.Query) (Latency, error) {
	lat := make([]time.Duration, 0, len(queries))
	var hits uint64
	for _, q := range queries {
		if err := ctx.Err(); err != nil {
			return Latency{}, err
		}
		start := time.Now()
		it, err := idx.Search(q)
		if err != nil {
			return Latency{}, fmt.Errorf("search %.80q: %w", q.Expression, err)
		}
		for i := 0; i < pageSize && it.Next(); i++ {
			_ = it.Document()
		}
		err = it.Error()
		hits += it.TotalCount()
		it.Close()
		if err != nil {
			return Latency{}, fmt.Errorf("search %.80q: %w", q.Expression, err)
		}
		lat = append(lat, time.Since(start))
	}
	if len(lat) == 0 {
		return Latency{}, nil
	}
	slices.Sort(lat)
	return Latency{Queries: len(lat), P50: lat[len(lat)/2], P99: lat[min(len(lat)-1, len(lat)*99/100)],
		Hits: float64(hits) / float64(len(lat))}, nil
}

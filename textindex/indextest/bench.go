package indextest

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linksrus/linksrus/textindex"
)

// BenchDocs is how many documents the search benchmark indexes before it
// starts timing. Building it takes seconds to minutes depending on the
// backend, which is why it happens only when benchmarks run (go test
// -bench), never in plain go test.
var BenchDocs = 100_000

// BenchNewFunc returns a new, empty index for a benchmark.
type BenchNewFunc func(b *testing.B) textindex.Indexer

// BenchBatchSize is how many documents the IndexBatch benchmark passes per
// call: the crawler's default store batch size.
const BenchBatchSize = 64

// parallelWriters is the number of concurrent Index callers per CPU in
// IndexParallel, about what a crawler's indexing stage runs.
const parallelWriters = 4

// pageSize is how many results a benchmarked search reads, a result page.
const pageSize = 10

// Bench runs the shared benchmarks against the backend newIndexer creates:
//
//   - Index: b.N documents indexed one after another into an empty index;
//     reports docs/s.
//   - IndexParallel: the same with parallelWriters goroutines per CPU, as
//     the crawler's indexing stage calls Index; reports docs/s.
//   - IndexBatch: b.N documents indexed by one caller in batches of
//     BenchBatchSize through textindex.BatchIndexer, as the crawler's
//     indexing stage does; reports docs/s. Skipped for a backend without
//     IndexBatch.
//   - Search: b.N searches on an index of BenchDocs documents (built
//     once, by GOMAXPROCS concurrent writers, its rate reported as
//     build-docs/s), each reading the first result page and the total;
//     reports the median and 99th percentile latency in milliseconds.
//     Documents carry PageRank scores, so results are ranked as after a
//     crawl (relevance + prior).
//   - LongQuery: 50 KB search-box queries on that index, which the query
//     bounds cut; reports the slowest in milliseconds.
//   - Facet: a broad query's first page, then the URLs of its best
//     FacetResults results, as a host facet reads them; reports the
//     median of each and their ratio.
func Bench(b *testing.B, newIndexer BenchNewFunc) {
	parent := b
	b.Run("Index", func(b *testing.B) {
		idx := newIndexer(b)
		c := newCorpus(1)
		docs := make([]*textindex.Document, b.N)
		for i := range docs {
			docs[i] = c.doc(i)
		}
		b.ReportAllocs()
		b.ResetTimer()
		start := time.Now()
		for _, d := range docs {
			if err := idx.Index(d); err != nil {
				b.Fatalf("Index: %v", err)
			}
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "docs/s")
	})

	b.Run("IndexParallel", func(b *testing.B) {
		idx := newIndexer(b)
		c := newCorpus(1)
		docs := make([]*textindex.Document, b.N)
		for i := range docs {
			docs[i] = c.doc(i)
		}
		var next atomic.Int64
		b.SetParallelism(parallelWriters)
		b.ReportAllocs()
		b.ResetTimer()
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := idx.Index(docs[next.Add(1)-1]); err != nil {
					b.Errorf("Index: %v", err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "docs/s")
	})

	b.Run("IndexBatch", func(b *testing.B) {
		idx := newIndexer(b)
		bi, ok := idx.(textindex.BatchIndexer)
		if !ok {
			b.Skip("the backend does not implement textindex.BatchIndexer")
		}
		c := newCorpus(1)
		docs := make([]*textindex.Document, b.N)
		for i := range docs {
			docs[i] = c.doc(i)
		}
		b.ReportAllocs()
		b.ResetTimer()
		start := time.Now()
		for lo := 0; lo < len(docs); lo += BenchBatchSize {
			if err := bi.IndexBatch(docs[lo:min(lo+BenchBatchSize, len(docs))]); err != nil {
				b.Fatalf("IndexBatch: %v", err)
			}
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "docs/s")
	})

	var (
		once    sync.Once
		idx     textindex.Indexer
		built   bool
		queries []textindex.Query
		rate    float64
	)
	b.Run("Search", func(b *testing.B) {
		// The index outlives this round (b.Run calls the function again
		// with a larger b.N), so it is created with the parent b and
		// built once.
		once.Do(func() {
			idx = newIndexer(parent)
			var docs []*textindex.Document
			docs, rate = build(b, idx, BenchDocs)
			queries = newCorpus(2).queries(1000, docs)
			built = true
		})
		if !built {
			b.Skip("building the index failed in an earlier round")
		}
		lat := make([]time.Duration, 0, b.N)
		var hits uint64
		b.ReportAllocs()
		b.ResetTimer()
		for n := range b.N {
			took, total := readResults(b, idx, queries[n%len(queries)], pageSize)
			hits += total
			lat = append(lat, took)
		}
		b.StopTimer()
		slices.Sort(lat)
		b.ReportMetric(ms(lat[len(lat)/2]), "median-ms")
		b.ReportMetric(ms(lat[min(len(lat)-1, len(lat)*99/100)]), "p99-ms")
		b.ReportMetric(float64(hits)/float64(b.N), "hits/op")
		b.ReportMetric(rate, "build-docs/s")
	})
	// LongQuery: 50 KB search-box queries on the same index (cut by the
	// query bounds to 4 KB and 32 terms): the words of many documents,
	// which match nothing together, and one broad word repeated, which
	// matches most documents. Reports the slowest in milliseconds.
	b.Run("LongQuery", func(b *testing.B) {
		if !built {
			b.Skip("needs the Search benchmark's index")
		}
		long := []textindex.Query{
			{Type: textindex.QueryTypeSearch, Expression: longText(func(i int) string { return queryText(queries, i) })},
			{Type: textindex.QueryTypeSearch, Expression: longText(func(int) string { return firstWord(queries) })},
		}
		var worst time.Duration
		b.ResetTimer()
		for n := range b.N {
			took, _ := readResults(b, idx, long[n%len(long)], pageSize)
			worst = max(worst, took)
		}
		b.StopTimer()
		b.ReportMetric(ms(worst), "max-ms")
	})
	// Facet: a broad query's first page, then what a host facet reads
	// (searchweb): the URLs of its best FacetResults results
	// (Query.URLsOnly). Reports the median of each in milliseconds and
	// the facet's cost as a multiple of the query's.
	b.Run("Facet", func(b *testing.B) {
		if !built {
			b.Skip("needs the Search benchmark's index")
		}
		q := textindex.Query{Expression: firstWord(queries)}
		urls := q
		urls.URLsOnly = true
		var page, facet []time.Duration
		b.ResetTimer()
		for range b.N {
			took, _ := readResults(b, idx, q, pageSize)
			page = append(page, took)
			took, _ = readResults(b, idx, urls, FacetResults)
			facet = append(facet, took)
		}
		b.StopTimer()
		slices.Sort(page)
		slices.Sort(facet)
		b.ReportMetric(ms(page[len(page)/2]), "query-ms")
		b.ReportMetric(ms(facet[len(facet)/2]), "facet-ms")
		b.ReportMetric(float64(facet[len(facet)/2])/float64(page[len(page)/2]), "facet/query")
	})
}

// FacetResults is how many of a query's best results a host facet reads,
// searchweb's default.
const FacetResults = 500

// longText joins word(0), word(1), ... into about 50 KB.
func longText(word func(i int) string) string {
	var sb []byte
	for i := 0; len(sb) < 50<<10; i++ {
		sb = append(sb, word(i)...)
		sb = append(sb, ' ')
	}
	return string(sb)
}

// queryText returns the expression of the i-th benchmark query.
func queryText(queries []textindex.Query, i int) string { return queries[i%len(queries)].Expression }

// firstWord is the first word of the first match query: corpus queries
// are drawn Zipf-distributed, so it is usually a broad one.
func firstWord(queries []textindex.Query) string {
	for _, q := range queries {
		if q.Type == textindex.QueryTypeMatch {
			if f := strings.Fields(q.Expression); len(f) > 0 {
				return f[0]
			}
		}
	}
	return "the"
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// readResults runs q on idx, reads its first n results, and returns how
// long that took and the query's total.
func readResults(b *testing.B, idx textindex.Indexer, q textindex.Query, n int) (time.Duration, uint64) {
	start := time.Now()
	it, err := idx.Search(q)
	if err != nil {
		b.Fatalf("Search(%.80q): %v", q.Expression, err)
	}
	for i := 0; i < n && it.Next(); i++ {
		_ = it.Document()
	}
	if err := it.Error(); err != nil {
		b.Fatalf("Search(%.80q): %v", q.Expression, err)
	}
	total := it.TotalCount()
	it.Close()
	return time.Since(start), total
}

// build indexes n generated documents with one writer per CPU and returns
// them with the rate in documents per second.
func build(b *testing.B, idx textindex.Indexer, n int) ([]*textindex.Document, float64) {
	c := newCorpus(3)
	docs := make([]*textindex.Document, n)
	for i := range docs {
		docs[i] = c.doc(i)
	}
	c.link(docs)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				if err := idx.Index(docs[i]); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		b.Fatalf("building the benchmark index: %v", err)
	}
	// Searches weigh anchor text, as they do after a ranking.
	start = time.Now()
	if err := idx.UpdateAnchors(context.Background()); err != nil {
		b.Fatalf("building the benchmark index: anchor text: %v", err)
	}
	b.Logf("anchor text of %d documents computed in %v", n, time.Since(start))
	return docs, float64(n) / elapsed.Seconds()
}

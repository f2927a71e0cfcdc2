package crawler_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/linkgraph"
	graphmem "github.com/linksrus/linksrus/linkgraph/memory"
	indexmem "github.com/linksrus/linksrus/textindex/memory"
)

const (
	benchPages     = 2000
	benchPageBytes = 30 << 10
	benchLinks     = 60
)

var words = strings.Fields(`the crawler fetches pages extracts links and text keeps graph index
current pipeline stage worker payload pool search engine rank query document title content
network private address resolver dial guard robots polite host limit scope depth redirect`)

// benchSite serves benchPages generated pages of about benchPageBytes, each
// linking to benchLinks other pages of the site.
func benchSite(b *testing.B) *httptest.Server {
	rng := rand.New(rand.NewPCG(1, 2))
	pages := make([][]byte, benchPages)
	for i := range pages {
		var sb strings.Builder
		fmt.Fprintf(&sb, "<!DOCTYPE html><html><head><meta charset=utf-8><title>Page %d of the bench site</title>"+
			"<style>p{margin:0}</style><script>var page=%d;</script></head><body><nav>", i, i)
		for l := range benchLinks {
			target := rng.IntN(benchPages)
			rel := ""
			if l%10 == 0 {
				rel = ` rel="nofollow"`
			}
			fmt.Fprintf(&sb, `<a href="/p/%d"%s class="nav-link">link %d</a> `, target, rel, target)
		}
		sb.WriteString("</nav><main>")
		for sb.Len() < benchPageBytes {
			sb.WriteString("<p>")
			for range 30 {
				sb.WriteString(words[rng.IntN(len(words))])
				sb.WriteByte(' ')
			}
			sb.WriteString("&amp; more</p>\n")
		}
		sb.WriteString("</main></body></html>")
		pages[i] = []byte(sb.String())
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &n); err != nil || n < 0 || n >= benchPages {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(pages[n])
	}))
	b.Cleanup(srv.Close)
	return srv
}

func seedGraph(b *testing.B, srv *httptest.Server) (*graphmem.Graph, []*linkgraph.Link) {
	g := graphmem.New()
	links := make([]*linkgraph.Link, benchPages)
	for i := range links {
		links[i] = &linkgraph.Link{URL: fmt.Sprintf("%s/p/%d", srv.URL, i)}
	}
	if err := g.UpsertLinks(links); err != nil {
		b.Fatal(err)
	}
	return g, links
}

type benchIterator struct {
	links []*linkgraph.Link
	i     int
}

func (it *benchIterator) Next() bool   { it.i++; return it.i <= len(it.links) }
func (it *benchIterator) Error() error { return nil }
func (it *benchIterator) Close() error { return nil }
func (it *benchIterator) Link() *linkgraph.Link {
	l := *it.links[it.i-1]
	return &l
}

// perPage reports throughput and allocation figures per page, next to the
// per-op (per-crawl) figures of b.ReportAllocs.
func perPage(b *testing.B, pages int, start time.Time, before *runtime.MemStats) {
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	total := float64(pages)
	b.ReportMetric(total/time.Since(start).Seconds(), "pages/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/total, "allocs/page")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/total, "B/page")
}

// BenchmarkCrawl crawls a generated loopback site through the whole
// pipeline into the in-memory graph and index. The raw-fetch baseline does
// only the HTTP part (same client settings and worker count, body read and
// discarded), so crawl/raw-fetch is the cost of everything the crawler adds.
func BenchmarkCrawl(b *testing.B) {
	srv := benchSite(b)
	const workers = 16
	detector := privnet.New(netip.MustParsePrefix("127.0.0.1/32"))

	b.Run("raw-fetch", func(b *testing.B) {
		client := &http.Client{Transport: detector.Transport()}
		client.Transport.(*http.Transport).MaxIdleConnsPerHost = workers
		defer client.CloseIdleConnections()
		_, links := seedGraph(b, srv)
		b.ReportAllocs()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		for b.Loop() {
			jobs := make(chan string)
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					buf := make([]byte, 64<<10)
					for u := range jobs {
						res, err := client.Get(u)
						if err != nil {
							b.Error(err)
							continue
						}
						for {
							if _, err := res.Body.Read(buf); err != nil {
								break
							}
						}
						res.Body.Close()
					}
				})
			}
			for _, l := range links {
				jobs <- l.URL
			}
			close(jobs)
			wg.Wait()
		}
		perPage(b, b.N*benchPages, start, &before)
	})

	b.Run("crawl", func(b *testing.B) {
		getterTransport := detector.Transport()
		getterTransport.MaxIdleConnsPerHost = workers
		client := &http.Client{Transport: getterTransport}
		defer client.CloseIdleConnections()
		b.ReportAllocs()
		var mallocs, bytes uint64
		var elapsed time.Duration
		for b.Loop() {
			b.StopTimer()
			g, links := seedGraph(b, srv)
			ix := indexmem.New()
			c, err := crawler.NewCrawler(crawler.Config{
				FetchOptions: crawler.FetchOptions{
					PrivateNetworkDetector: detector,
					URLGetter:              client,
					Workers:                workers,
				},
				Graph: g,
				Index: ix,
			})
			if err != nil {
				b.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			b.StartTimer()
			n, err := c.Crawl(context.Background(), &benchIterator{links: links})
			b.StopTimer()
			elapsed += time.Since(start)
			runtime.ReadMemStats(&after)
			mallocs += after.Mallocs - before.Mallocs
			bytes += after.TotalAlloc - before.TotalAlloc
			if err != nil || n != benchPages {
				b.Fatalf("Crawl = %d, %v", n, err)
			}
			_ = g.Close()
			_ = ix.Close()
			b.StartTimer()
		}
		pages := float64(b.N * benchPages)
		b.ReportMetric(pages/elapsed.Seconds(), "pages/s")
		b.ReportMetric(float64(mallocs)/pages, "allocs/page")
		b.ReportMetric(float64(bytes)/pages, "B/page")
	})
}

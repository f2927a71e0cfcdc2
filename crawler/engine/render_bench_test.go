package engine_test

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/crawler/render"
	"github.com/linksrus/linksrus/internal/chromium/chromiumtest"
	"github.com/linksrus/linksrus/internal/jsweb"
	"github.com/linksrus/linksrus/linkgraph/memory"
)

// renderBenchPages is the size of the generated JavaScript site both
// crawls of the rendering benchmark crawl, from /gen/0, keeping to /gen/.
const renderBenchPages = 200

// renderBenchTabs is the tabs both crawls render with.
const renderBenchTabs = 2

// BenchmarkRenderedCrawl crawls internal/jsweb's generated site with
// --render always (engine.Options.Render), and reports pages per second
// and the share of the site's pages found: make render-bench, beside
// BenchmarkPlainBrowserCrawl.
func BenchmarkRenderedCrawl(b *testing.B) {
	path := chromiumtest.ForTest(b)
	s, err := jsweb.Start(jsweb.Options{Generated: renderBenchPages})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var found int64
	var elapsed time.Duration
	for b.Loop() {
		var n atomic.Int64
		e, err := engine.New(engine.Options{
			Graph:          memory.New(),
			FetchOptions:   crawler.FetchOptions{PrivateNetworkDetector: loopback()},
			PerHost:        8,
			IgnoreSitemaps: true,
			Include:        []string{`/gen/\d+$`},
			Render:         crawler.RenderAlways,
			Rendering:      render.Options{Chromium: path, Tabs: renderBenchTabs},
			OnOutcome: func(o crawler.Outcome) {
				if o.Crawled() && o.Render.Rendered {
					n.Add(1)
				}
			},
		})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := e.Run(context.Background(), s.URL()+"/gen/0"); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		found += n.Load()
	}
	b.ReportMetric(float64(found)/elapsed.Seconds(), "pages/s")
	b.ReportMetric(100*float64(found)/float64(b.N*renderBenchPages), "%found")
}

// BenchmarkPlainBrowserCrawl crawls the same site as BenchmarkRenderedCrawl
// the way a browser crawl is commonly written (colly's and katana's users'
// chromedp loops): as many tabs, each navigating to a page, waiting for
// its load event, reading its anchors and queueing those not seen, no
// sleeps; the browser fetches everything itself.
func BenchmarkPlainBrowserCrawl(b *testing.B) {
	path := chromiumtest.ForTest(b)
	s, err := jsweb.Start(jsweb.Options{Generated: renderBenchPages})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox)...)
	defer cancelAlloc()
	browser, cancel := chromedp.NewContext(alloc)
	defer cancel()
	if err := chromedp.Do(browser); err != nil {
		b.Fatal(err)
	}
	var found int64
	var elapsed time.Duration
	for b.Loop() {
		start := time.Now()
		n := plainCrawl(b, browser, s.URL()+"/gen/0")
		elapsed += time.Since(start)
		found += int64(n)
	}
	b.ReportMetric(float64(found)/elapsed.Seconds(), "pages/s")
	b.ReportMetric(100*float64(found)/float64(b.N*renderBenchPages), "%found")
}

// plainCrawl crawls from seed with renderBenchTabs tabs, following the
// links to /gen/ pages, and returns the pages it loaded.
func plainCrawl(b *testing.B, browser context.Context, seed string) int {
	var mu sync.Mutex
	seen := map[string]bool{seed: true}
	queue := []string{seed}
	inFlight := 0
	cond := sync.NewCond(&mu)
	loaded := 0
	var wg sync.WaitGroup
	for range renderBenchTabs {
		tab, cancel := chromedp.NewContext(browser)
		wg.Go(func() {
			defer cancel()
			for {
				mu.Lock()
				for len(queue) == 0 && inFlight > 0 {
					cond.Wait()
				}
				if len(queue) == 0 {
					mu.Unlock()
					cond.Broadcast()
					return
				}
				u := queue[0]
				queue = queue[1:]
				inFlight++
				mu.Unlock()

				var links []string
				err := chromedp.Do(tab, chromedp.Navigate(u))
				if err == nil {
					links, err = chromedp.Run(tab, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('a[href]'), (a) => a.href)`))
				}

				mu.Lock()
				inFlight--
				if err != nil {
					b.Errorf("%s: %v", u, err)
				} else {
					loaded++
				}
				for _, l := range links {
					if p, err := url.Parse(l); err == nil && strings.HasPrefix(p.Path, "/gen/") && !seen[l] {
						seen[l] = true
						queue = append(queue, l)
					}
				}
				mu.Unlock()
				cond.Broadcast()
			}
		})
	}
	wg.Wait()
	return loaded
}

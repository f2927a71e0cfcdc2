package engine_test

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
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
// chromedp loops): as many tabs, each navigating to a page, waiting,
// reading its anchors and queueing those not seen, no sleeps; the browser
// fetches everything itself. Two waits: for the load event (load), which
// misses what scripts add after it, and for Chromium's networkIdle
// lifecycle event (networkidle: no connection for 500 ms, Puppeteer's
// networkidle0 and Playwright's "networkidle"), which is how such crawls
// wait for it.
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
	for _, wait := range []string{"load", "networkidle"} {
		b.Run(wait, func(b *testing.B) {
			var found int64
			var elapsed time.Duration
			for b.Loop() {
				start := time.Now()
				n := plainCrawl(b, browser, s.URL()+"/gen/0", wait == "networkidle")
				elapsed += time.Since(start)
				found += int64(n)
			}
			b.ReportMetric(float64(found)/elapsed.Seconds(), "pages/s")
			b.ReportMetric(100*float64(found)/float64(b.N*renderBenchPages), "%found")
		})
	}
}

// plainCrawl crawls from seed with renderBenchTabs tabs, following the
// links to /gen/ pages, and returns the pages it loaded; with idle, each
// page is read once the network has been idle (see idleWatcher), else at
// its load event.
func plainCrawl(b *testing.B, browser context.Context, seed string, idle bool) int {
	var mu sync.Mutex
	seen := map[string]bool{seed: true}
	queue := []string{seed}
	inFlight := 0
	cond := sync.NewCond(&mu)
	loaded := 0
	var wg sync.WaitGroup
	for range renderBenchTabs {
		tab, cancel := chromedp.NewContext(browser)
		w, err := watchIdle(tab)
		if err != nil {
			b.Fatal(err)
		}
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
				var err error
				if idle {
					err = w.navigate(u)
				} else {
					err = chromedp.Do(tab, chromedp.Navigate(u))
				}
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

// idleWatcher waits on a tab for Chromium's networkIdle lifecycle event
// (no connection for 500 ms) of the documents it loads.
type idleWatcher struct {
	tab    context.Context
	events chan *page.EventLifecycleEvent
}

func watchIdle(tab context.Context) (*idleWatcher, error) {
	w := &idleWatcher{tab: tab, events: make(chan *page.EventLifecycleEvent, 64)}
	err := chromedp.Listen(tab, func(ev any) {
		if e, ok := ev.(*page.EventLifecycleEvent); ok && (e.Name == "init" || e.Name == "networkIdle") {
			select {
			case w.events <- e:
			default: // a page's two events never fill it
			}
		}
	})
	return w, err
}

// navigate navigates the tab to u and waits for the networkIdle event of
// the document it loads.
func (w *idleWatcher) navigate(u string) error {
	for len(w.events) > 0 {
		<-w.events // the last page's
	}
	ctx, cancel := context.WithTimeout(w.tab, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
		return err
	}
	var loader cdp.LoaderID
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev := <-w.events:
			switch {
			case ev.Name == "init":
				loader = ev.LoaderID // this navigation's document
			case ev.LoaderID == loader:
				return nil
			}
		}
	}
}

package engine_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/linkgraph/memory"
)

func gzipped(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func urlset(base string, paths ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, p := range paths {
		fmt.Fprintf(&b, "<url><loc>%s%s</loc><lastmod>2024-01-02</lastmod></url>\n", base, p)
	}
	b.WriteString("</urlset>")
	return b.String()
}

// sitemapSite serves robots.txt (with the given lines), the files of
// maps by path (a []byte body is sent as is, as a gzip file; a string as
// XML; a function serves), 404 for paths with "missing" in them, and a
// page linking nowhere for any other.
// It records which pages were served.
type sitemapSite struct {
	robots string
	maps   map[string]any
	// pageDelay slows down every page (not robots.txt or a sitemap).
	pageDelay time.Duration
	mu        sync.Mutex
	pages     map[string]int
}

func (s *sitemapSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if p == "/robots.txt" {
		fmt.Fprint(w, s.robots)
		return
	}
	if m, ok := s.maps[p]; ok {
		switch body := m.(type) {
		case []byte:
			w.Header().Set("Content-Type", "application/gzip")
			_, _ = w.Write(body)
		case func(http.ResponseWriter):
			body(w)
		default:
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprint(w, body)
		}
		return
	}
	if !strings.Contains(p, "missing") {
		s.mu.Lock()
		if s.pages == nil {
			s.pages = make(map[string]int)
		}
		s.pages[p]++
		delay := s.pageDelay
		s.mu.Unlock()
		time.Sleep(delay)
		htmlPage(w, "nothing to follow here")
		return
	}
	http.NotFound(w, r)
}

func (s *sitemapSite) served(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pages[p]
}

// Pages no link reaches, listed only by sitemaps, are crawled: robots.txt
// names an index of a gzipped sitemap (.xml.gz) and of one sent with
// Content-Encoding gzip; /sitemap.xml lists one more. An entry of another
// host, or outside the crawl's scope, is left out.
func TestSitemapOnlyPagesAreCrawled(t *testing.T) {
	site := &sitemapSite{maps: map[string]any{}}
	log := &requestLog{}
	h := startHost(t, 70, log, site)
	base := "http://" + h.Host
	site.robots = "User-agent: *\nDisallow: /private\nSitemap: " + base + "/maps/index.xml\n"
	site.maps["/maps/index.xml"] = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>` + base + `/maps/a.xml.gz</loc></sitemap>
<sitemap><loc>` + base + `/maps/b.xml</loc><lastmod>2024-02-03T04:05:06Z</lastmod></sitemap>
</sitemapindex>`
	// Entries outside /maps/ are outside these sitemaps' directory.
	site.maps["/maps/a.xml.gz"] = gzipped(t, urlset(base, "/maps/../orphan-outside", "/maps/p1", "/maps/p2"))
	b := gzipped(t, urlset(base, "/maps/p3")+"")
	site.maps["/maps/b.xml"] = func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/xml")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(b)
	}
	site.maps["/sitemap.xml"] = urlset(base, "/orphan1", "/private/x")
	var mu sync.Mutex
	var outcomes []crawler.Outcome
	e, err := engine.New(engine.Options{
		Graph:        memory.New(),
		FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback()},
		OnOutcome: func(o crawler.Outcome) {
			mu.Lock()
			outcomes = append(outcomes, o)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.Run(context.Background(), base+"/")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/", "/maps/p1", "/maps/p2", "/maps/p3", "/orphan1"} {
		if n := site.served(p); n != 1 {
			t.Errorf("%s served %d times, want 1", p, n)
		}
	}
	if n := site.served("/orphan-outside"); n != 0 {
		t.Errorf("an entry outside its sitemap's directory was crawled")
	}
	if log.count(h.Host, "/private/x") != 0 {
		t.Errorf("a listed page robots.txt disallows was requested")
	}
	if sum.Pages != 5 || sum.Errors != 0 {
		t.Errorf("%d pages, %d errors, want 5 and 0: %v", sum.Pages, sum.Errors, outcomes)
	}
	// The index, a, b and /sitemap.xml; p1-p3, orphan1 and /private/x
	// (in scope: robots.txt refuses it when its turn comes).
	if sum.Sitemaps != 4 || sum.SitemapURLs != 5 || sum.SitemapSkipped != 1 {
		t.Errorf("sitemaps %d, URLs %d, skipped %d, want 4, 5, 1", sum.Sitemaps, sum.SitemapURLs, sum.SitemapSkipped)
	}
	for _, p := range []string{"/robots.txt", "/maps/index.xml", "/maps/a.xml.gz", "/maps/b.xml", "/sitemap.xml"} {
		if n := log.count(h.Host, p); n != 1 {
			t.Errorf("%s requested %d times, want once", p, n)
		}
	}
}

// Malformed, oversized (by entries; by bytes is package sitemap's test),
// missing and disallowed sitemaps are each reported
// (ReasonSitemap, or ReasonRobots), as skips; the entries a malformed one
// gave before its error are crawled, and the crawl goes on.
func TestSitemapErrorsAreReportedSkips(t *testing.T) {
	site := &sitemapSite{maps: map[string]any{}}
	log := &requestLog{}
	h := startHost(t, 71, log, site)
	base := "http://" + h.Host
	site.robots = "User-agent: *\nDisallow: /private\n" +
		"Sitemap: " + base + "/bad.xml\nSitemap: " + base + "/big.xml\n" +
		"Sitemap: " + base + "/missing.xml\nSitemap: " + base + "/private/sitemap.xml\n" +
		"Sitemap: " + base + "/page.xml\nSitemap: http://127.0.0.1:9/other-host.xml\n"
	site.maps["/bad.xml"] = strings.TrimSuffix(urlset(base, "/p1", "/p2"), "</urlset>") + "<url><loc>" + base + "/p3</loc></oops>"
	var big strings.Builder
	big.WriteString("<urlset>")
	for i := range 50_001 {
		// Out of scope: the test need not crawl 50,000 pages.
		fmt.Fprintf(&big, "<url><loc>http://127.0.0.1:9/%d</loc></url>", i)
	}
	big.WriteString("</urlset>")
	site.maps["/big.xml"] = big.String()
	site.maps["/private/sitemap.xml"] = urlset(base, "/p9")
	site.maps["/page.xml"] = func(w http.ResponseWriter) { htmlPage(w, "not a sitemap") }
	got := map[string]crawler.Outcome{}
	var mu sync.Mutex
	e, err := engine.New(engine.Options{
		Graph:        memory.New(),
		FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback()},
		OnOutcome: func(o crawler.Outcome) {
			mu.Lock()
			got[o.URL] = o
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.Run(context.Background(), base+"/")
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]crawler.Reason{
		"/bad.xml": crawler.ReasonSitemap, "/big.xml": crawler.ReasonSitemap,
		"/missing.xml": crawler.ReasonSitemap, "/page.xml": crawler.ReasonSitemap, "/private/sitemap.xml": crawler.ReasonRobots,
		"/p1": crawler.ReasonCrawled, "/p2": crawler.ReasonCrawled,
	} {
		o, ok := got[base+path]
		if !ok || o.Reason != want || (want != crawler.ReasonCrawled && o.Err == nil) {
			t.Errorf("%s: outcome %v (%v), want %v with an error", path, o.Reason, o.Err, want)
		}
	}
	if o := got["http://127.0.0.1:9/other-host.xml"]; o.Reason != crawler.ReasonSitemap {
		t.Errorf("a sitemap on another host: %v", o.Reason)
	}
	for path, want := range map[string]string{"/bad.xml": "malformed", "/big.xml": "limit", "/missing.xml": "404"} {
		if o := got[base+path]; o.Err == nil || !strings.Contains(o.Err.Error(), want) {
			t.Errorf("%s: error %v, want it to say %q", path, o.Err, want)
		}
	}
	if sum.Errors != 0 || sum.Pages != 3 || sum.Reasons["sitemap"] != 5 {
		t.Errorf("summary %+v, want 3 pages, no error, 5 sitemap skips", sum.Progress)
	}
	if log.count(h.Host, "/private/sitemap.xml") != 0 {
		t.Error("a sitemap robots.txt disallows was requested")
	}
}

// Sitemap requests hold to the host's politeness like every other: at
// most PerHost in flight, Delay between two starts.
func TestSitemapPoliteness(t *testing.T) {
	const delay = 80 * time.Millisecond
	site := &sitemapSite{maps: map[string]any{}}
	log := &requestLog{}
	h := startHost(t, 72, log, site)
	base := "http://" + h.Host
	site.robots = "User-agent: *\nAllow: /\nSitemap: " + base + "/index.xml\n"
	var index strings.Builder
	index.WriteString("<sitemapindex>")
	var pages []string
	for i := range 4 {
		fmt.Fprintf(&index, "<sitemap><loc>%s/s%d.xml</loc></sitemap>", base, i)
		site.maps[fmt.Sprintf("/s%d.xml", i)] = urlset(base, fmt.Sprintf("/p%d", i))
		pages = append(pages, fmt.Sprintf("/p%d", i))
	}
	index.WriteString("</sitemapindex>")
	site.maps["/index.xml"] = index.String()
	site.maps["/sitemap.xml"] = urlset(base, pages...)
	e, err := engine.New(engine.Options{
		Graph: memory.New(),
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: loopback(),
			Workers:                8,
			DecorateRequest: func(r *http.Request) error {
				stampSent(r)
				return nil
			},
		},
		PerHost: 2,
		Delay:   delay,
	})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.Run(context.Background(), base+"/")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pages != 5 || sum.Sitemaps != 6 {
		t.Errorf("%d pages from %d sitemaps, want 5 from 6: %v", sum.Pages, sum.Sitemaps, sum.Reasons)
	}
	log.checkPoliteness(t, h.Host, 2, delay)
	if n := len(log.of(h.Host)); n != 12 { // robots.txt, 6 sitemaps, 5 pages
		t.Errorf("%d requests, want 12", n)
	}
}

// IgnoreSitemaps turns sitemaps off; IgnoreRobots does not (only
// /sitemap.xml is read then, robots.txt not being fetched).
func TestSitemapsOffAndIgnoreRobots(t *testing.T) {
	for _, c := range []struct {
		name           string
		opts           engine.Options
		pages          int64
		robots, smap   int
		robotsSitemaps int
	}{
		{"IgnoreSitemaps", engine.Options{IgnoreSitemaps: true}, 1, 1, 0, 0},
		{"IgnoreRobots", engine.Options{IgnoreRobots: true}, 2, 0, 1, 0},
		{"default", engine.Options{}, 3, 1, 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			site := &sitemapSite{maps: map[string]any{}}
			log := &requestLog{}
			h := startHost(t, 73, log, site)
			base := "http://" + h.Host
			site.robots = "Sitemap: " + base + "/listed.xml\n"
			site.maps["/listed.xml"] = urlset(base, "/orphan-listed")
			site.maps["/sitemap.xml"] = urlset(base, "/orphan")
			o := c.opts
			o.Graph, o.PrivateNetworkDetector = memory.New(), loopback()
			e, err := engine.New(o)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := e.Run(context.Background(), base+"/")
			if err != nil {
				t.Fatal(err)
			}
			if sum.Pages != c.pages {
				t.Errorf("%d pages, want %d", sum.Pages, c.pages)
			}
			if n := log.count(h.Host, "/robots.txt"); n != c.robots {
				t.Errorf("robots.txt requested %d times, want %d", n, c.robots)
			}
			if n := log.count(h.Host, "/sitemap.xml"); n != c.smap {
				t.Errorf("/sitemap.xml requested %d times, want %d", n, c.smap)
			}
			if n := log.count(h.Host, "/listed.xml"); n != c.robotsSitemaps {
				t.Errorf("/listed.xml requested %d times, want %d", n, c.robotsSitemaps)
			}
		})
	}
}

// Hostile sitemaps end as reported skips, in bounded time, leaving nothing
// running (goleak): one that never answers, one whose body never ends, one
// that redirects to itself, one that redirects off the host.
func TestHostileSitemaps(t *testing.T) {
	site := &sitemapSite{maps: map[string]any{}}
	log := &requestLog{}
	h := startHost(t, 74, log, site)
	base := "http://" + h.Host
	site.robots = "Sitemap: " + base + "/hang.xml\nSitemap: " + base + "/endless.xml\nSitemap: " + base + "/loop.xml\nSitemap: " + base + "/away.xml\n"
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	site.maps["/hang.xml"] = func(w http.ResponseWriter) {
		w.(http.Flusher).Flush()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
	}
	site.maps["/endless.xml"] = func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprint(w, "<urlset>")
		chunk := []byte(strings.Repeat("<url><loc>http://127.0.0.1:9/x</loc></url>", 100))
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
	site.maps["/loop.xml"] = func(w http.ResponseWriter) {
		w.Header().Set("Location", "/loop.xml")
		w.WriteHeader(http.StatusFound)
	}
	site.maps["/away.xml"] = func(w http.ResponseWriter) {
		w.Header().Set("Location", "http://127.0.0.1:9/sitemap.xml")
		w.WriteHeader(http.StatusMovedPermanently)
	}
	got := map[string]crawler.Outcome{}
	var mu sync.Mutex
	e, err := engine.New(engine.Options{
		Graph: memory.New(),
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: loopback(),
			FetchTimeout:           500 * time.Millisecond,
		},
		OnOutcome: func(o crawler.Outcome) {
			mu.Lock()
			got[o.URL] = o
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	sum, err := e.Run(context.Background(), base+"/")
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("the crawl took %v", d)
	}
	for _, p := range []string{"/hang.xml", "/endless.xml", "/loop.xml", "/away.xml"} {
		if o := got[base+p]; o.Reason != crawler.ReasonSitemap || o.Err == nil {
			t.Errorf("%s: outcome %v (%v), want a sitemap skip", p, o.Reason, o.Err)
		}
	}
	if sum.Pages != 1 || sum.Errors != 0 {
		t.Errorf("summary %+v", sum.Progress)
	}
	if n := log.count(h.Host, "/loop.xml"); n > 6 {
		t.Errorf("a redirect loop was followed %d times", n)
	}
}

// A recrawl queues every due page from the graph before the host's
// sitemap is read; the sitemap's lastmod, older than the pages' last
// retrieval, still spares the requests of those handed out after it was
// read: they count as unchanged. A page whose lastmod is later than its
// retrieval is requested.
func TestSitemapLastModSparesRecrawl(t *testing.T) {
	site := &sitemapSite{maps: map[string]any{}}
	log := &requestLog{}
	h := startHost(t, 71, log, site)
	base := "http://" + h.Host
	site.robots = "User-agent: *\nSitemap: " + base + "/maps/all.xml\n"
	var listed []string
	for i := range 30 {
		listed = append(listed, fmt.Sprintf("/maps/p%d", i))
	}
	// urlset dates every entry 2024-01-02; /maps/new says it changed
	// in the future, after any retrieval.
	site.maps["/maps/all.xml"] = strings.Replace(urlset(base, append(listed, "/maps/new")...),
		"<loc>"+base+"/maps/new</loc><lastmod>2024-01-02</lastmod>", "<loc>"+base+"/maps/new</loc><lastmod>2999-01-01</lastmod>", 1)
	g := memory.New()
	run := func(recrawl time.Duration) *engine.Summary {
		t.Helper()
		// One request at a time on the host, so that the pages handed
		// out before the sitemap is read are few.
		e, err := engine.New(engine.Options{Graph: g, FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback()}, PerHost: 1, RecrawlAfter: recrawl})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := e.Run(context.Background(), base+"/")
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	if sum := run(0); sum.Pages != 32 {
		t.Fatalf("first crawl: %d pages, want 32", sum.Pages)
	}
	time.Sleep(20 * time.Millisecond)
	// Slow pages, so that however slowly the machine reads the sitemap,
	// few pages go out before it is read.
	site.mu.Lock()
	site.pageDelay = 10 * time.Millisecond
	site.mu.Unlock()
	sum := run(10 * time.Millisecond)
	requested := 0
	for _, p := range listed {
		requested += site.served(p) - 1
	}
	if n := site.served("/maps/new"); n != 2 {
		t.Errorf("/maps/new served %d times, want twice (its lastmod is after its retrieval)", n)
	}
	if sum.Pages != 32 || sum.Unchanged+int64(requested) != 30 || sum.Unchanged < 20 {
		t.Errorf("recrawl: %d of the 30 listed pages requested again, %d pages, %d unchanged; want 32 pages, most of the 30 unchanged, the rest requested",
			requested, sum.Pages, sum.Unchanged)
	}
}

// A sitemap that redirects to a path robots.txt disallows is not followed
// there: reported, and what the target lists is not crawled.
func TestSitemapRedirectObeysRobots(t *testing.T) {
	site := &sitemapSite{maps: map[string]any{}}
	log := &requestLog{}
	h := startHost(t, 72, log, site)
	base := "http://" + h.Host
	site.robots = "User-agent: *\nDisallow: /private\nSitemap: " + base + "/maps/s.xml\n"
	site.maps["/maps/s.xml"] = func(w http.ResponseWriter) {
		w.Header().Set("Location", base+"/private/s.xml")
		w.WriteHeader(http.StatusFound)
	}
	site.maps["/private/s.xml"] = urlset(base, "/orphan")
	var mu sync.Mutex
	var outcomes []crawler.Outcome
	e, err := engine.New(engine.Options{
		Graph:        memory.New(),
		FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback()},
		OnOutcome: func(o crawler.Outcome) {
			mu.Lock()
			outcomes = append(outcomes, o)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(context.Background(), base+"/"); err != nil {
		t.Fatal(err)
	}
	if n := log.count(h.Host, "/private/s.xml"); n != 0 {
		t.Errorf("the disallowed redirect target was requested %d times", n)
	}
	if n := site.served("/orphan"); n != 0 {
		t.Errorf("a page the disallowed sitemap lists was crawled")
	}
	reported := false
	for _, o := range outcomes {
		if o.URL == base+"/maps/s.xml" && o.Reason == crawler.ReasonSitemap && o.Err != nil && strings.Contains(o.Err.Error(), "robots.txt disallows") {
			reported = true
		}
	}
	if !reported {
		t.Errorf("the refused redirect was not reported: %v", outcomes)
	}
}

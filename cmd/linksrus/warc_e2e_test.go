package main

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/linksrus/linksrus/archive/warc"
	"github.com/linksrus/linksrus/crawler"
)

// gzipWriter sends a response gzipped.
type gzipWriter struct {
	http.ResponseWriter
	zw *gzip.Writer
}

func (g gzipWriter) Write(b []byte) (int, error) { return g.zw.Write(b) }

// archivedSite is testSite behind a front that gzips the odd pages for
// clients that ask, redirects /old to page 5 and counts every request
// (robots.txt and /sitemap.xml included: they are archived too) by path.
func archivedSite(t *testing.T) (*httptest.Server, func() map[string]int) {
	inner := &testSite{n: 40, fetches: map[string]int{}}
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/page/5", http.StatusMovedPermanently)
			return
		}
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") && strings.HasSuffix(r.URL.Path, "1") {
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			defer zw.Close()
			inner.serve(gzipWriter{w, zw}, r)
			return
		}
		inner.serve(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(hits)
	}
}

type searchResults struct {
	Total   int
	Results []struct{ URL, Title string }
}

func searchResultsOf(t *testing.T, data string, query ...string) searchResults {
	t.Helper()
	r := linksrus(t, nil, append([]string{"search", "--data", data, "--json"}, query...)...)
	if r.code != 0 {
		t.Fatalf("search %v: exit %d: %s", query, r.code, r.stderr)
	}
	var res searchResults
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("search %v: %v\n%s", query, err, r.stdout)
	}
	return res
}

func statsJSON(t *testing.T, data string) graphStats {
	t.Helper()
	r := linksrus(t, nil, "stats", "--data", data, "--json")
	var st graphStats
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("stats: %v\n%s%s", err, r.stdout, r.stderr)
	}
	st.IndexBytes, st.GraphBytes = 0, 0 // files' sizes differ with history
	return st
}

// A crawl with --warc archives every response; importing the archive into
// fresh stores, with the site gone, gives the same graph and index.
func TestCrawlToWARCThenImport(t *testing.T) {
	site, hits := archivedSite(t)
	crawled, imported, archive := t.TempDir(), t.TempDir(), t.TempDir()
	r := linksrus(t, nil, "crawl", "--data", crawled, "--allow-net", "127.0.0.0/8",
		"--warc", archive, "--warc-max-size", "20000", site.URL+"/", site.URL+"/old")
	if r.code != 0 || !strings.Contains(r.stdout, "archived ") {
		t.Fatalf("crawl exited %d: %s%s", r.code, r.stdout, r.stderr)
	}

	// Rotated files, each with its index; a CDXJ line per response.
	warcs, _ := filepath.Glob(filepath.Join(archive, "*.warc.gz"))
	if len(warcs) < 2 {
		t.Fatalf("%d WARC files, want several at --warc-max-size 20000", len(warcs))
	}
	requests := 0
	for _, n := range hits() {
		requests += n
	}
	lines := 0
	for _, w := range warcs {
		idx, err := os.ReadFile(w + ".cdxj")
		if err != nil {
			t.Fatal(err)
		}
		lines += strings.Count(string(idx), "\n")
	}
	if lines != requests {
		t.Errorf("%d CDXJ lines for %d requests", lines, requests)
	}
	// Every fetched page is in the archive, as the server sent it.
	archived := map[string]bool{}
	gzipped := 0
	for p, err := range warc.ReadDir(context.Background(), archive, crawler.DefaultMaxBodyBytes) {
		if err != nil {
			t.Fatal(err)
		}
		archived[strings.TrimPrefix(p.URL, site.URL)] = true
		if p.Header.Get("Content-Encoding") == "gzip" {
			gzipped++
		}
	}
	for path := range hits() {
		if !archived[path] {
			t.Errorf("%s fetched but not archived", path)
		}
	}
	if gzipped == 0 {
		t.Error("no response archived gzipped")
	}

	site.Close() // the import fetches nothing
	r = linksrus(t, nil, "import", "--data", imported, "--allow-net", "127.0.0.0/8", archive)
	if r.code != 0 {
		t.Fatalf("import exited %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if got, want := statsJSON(t, imported), statsJSON(t, crawled); got != want {
		t.Errorf("stats after import %+v, after crawl %+v", got, want)
	}
	for _, q := range [][]string{{"gophers"}, {"zanzibar", "marmalade"}, {"page", "5"}, {`"page number 11"`}, {"gophers -zanzibar"}} {
		got, want := searchResultsOf(t, imported, q...), searchResultsOf(t, crawled, q...)
		if got.Total != want.Total || !slices.Equal(resultURLs(got), resultURLs(want)) {
			t.Errorf("search %v: imported %d %v, crawled %d %v", q, got.Total, resultURLs(got), want.Total, resultURLs(want))
		}
	}
}

func resultURLs(r searchResults) []string {
	var urls []string
	for _, x := range r.Results {
		urls = append(urls, x.URL)
	}
	return urls
}

func TestImportBadArchive(t *testing.T) {
	archive := t.TempDir()
	if err := os.WriteFile(filepath.Join(archive, "bad.warc.gz"), []byte("\x1f\x8b garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := linksrus(t, nil, "import", "--data", t.TempDir(), archive)
	if r.code != exitFailure || !strings.Contains(r.stderr, "bad.warc.gz") || strings.Contains(r.stderr, "panic") {
		t.Fatalf("import of garbage: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = linksrus(t, nil, "import", "--data", t.TempDir(), filepath.Join(archive, "missing"))
	if r.code != exitUsage {
		t.Fatalf("import of a missing directory: exit %d\n%s", r.code, r.stderr)
	}
	empty := t.TempDir()
	r = linksrus(t, nil, "import", "--data", t.TempDir(), empty)
	if r.code != exitFailure || !strings.Contains(r.stderr, "no page") {
		t.Fatalf("import of an empty directory: exit %d\n%s", r.code, r.stderr)
	}
}

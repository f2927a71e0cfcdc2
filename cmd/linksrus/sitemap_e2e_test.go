package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// sitemapTestSite lists /orphan (linked from nowhere) in a gzipped sitemap
// of an index named in robots.txt, /orphan2 in /sitemap.xml, and names a
// malformed sitemap too. It counts requests by path.
func sitemapTestSite(t *testing.T) (*httptest.Server, func(string) int) {
	var mu sync.Mutex
	hits := map[string]int{}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := "http://" + r.Host
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: %s/index.xml\nSitemap: %s/bad.xml\n", base, base)
		case "/index.xml":
			fmt.Fprintf(w, `<sitemapindex><sitemap><loc>%s/pages.xml.gz</loc></sitemap></sitemapindex>`, base)
		case "/pages.xml.gz":
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			fmt.Fprintf(zw, `<urlset><url><loc>%s/orphan</loc><lastmod>2025-01-01</lastmod></url></urlset>`, base)
			zw.Close()
			w.Write(b.Bytes())
		case "/sitemap.xml":
			fmt.Fprintf(w, `<urlset><url><loc>%s/orphan2</loc></url></urlset>`, base)
		case "/bad.xml":
			fmt.Fprint(w, `<urlset><url><loc>`)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<title>page %s</title><p>text</p>`, r.URL.Path)
		}
	}))
	t.Cleanup(s.Close)
	return s, func(p string) int {
		mu.Lock()
		defer mu.Unlock()
		return hits[p]
	}
}

// Pages only sitemaps list are crawled, a malformed sitemap is a line of
// the report (and the crawl succeeds), and --sitemaps=false turns them
// off while --ignore-robots does not.
func TestCrawlSitemaps(t *testing.T) {
	s, hits := sitemapTestSite(t)
	data := t.TempDir()
	report := filepath.Join(t.TempDir(), "report.json")
	r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", "--report", report, s.URL+"/")
	if r.code != 0 || !strings.Contains(r.stdout, "crawled 3 pages") || !strings.Contains(r.stdout, "sitemaps: 4 read, listing 2 URLs in scope") {
		t.Fatalf("crawl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if hits("/orphan") != 1 || hits("/orphan2") != 1 {
		t.Errorf("sitemap-only pages fetched %d and %d times, want once", hits("/orphan"), hits("/orphan2"))
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Summary summary      `json:"summary"`
		URLs    []urlOutcome `json:"urls"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Sitemaps != 4 || rep.Summary.SitemapURLs != 2 || rep.Summary.Errors != 0 {
		t.Errorf("report summary %+v", rep.Summary)
	}
	var bad *urlOutcome
	for i, u := range rep.URLs {
		if u.URL == s.URL+"/bad.xml" {
			bad = &rep.URLs[i]
		}
	}
	if bad == nil || bad.Outcome != "sitemap" || !strings.Contains(bad.Error, "malformed") {
		t.Errorf("the malformed sitemap's report line: %+v", bad)
	}

	// Off: a fresh crawl reads no sitemap and finds no orphan.
	s2, hits2 := sitemapTestSite(t)
	r = linksrus(t, nil, "crawl", "--data", t.TempDir(), "--allow-net", "127.0.0.0/8", "--sitemaps=false", s2.URL+"/")
	if r.code != 0 || !strings.Contains(r.stdout, "crawled 1 pages") || hits2("/sitemap.xml")+hits2("/index.xml") != 0 {
		t.Errorf("--sitemaps=false: exit %d, sitemap requests %d\n%s%s", r.code, hits2("/sitemap.xml")+hits2("/index.xml"), r.stdout, r.stderr)
	}
	// --ignore-robots: /sitemap.xml is still read.
	s3, hits3 := sitemapTestSite(t)
	r = linksrus(t, nil, "crawl", "--data", t.TempDir(), "--allow-net", "127.0.0.0/8", "--ignore-robots", s3.URL+"/")
	if r.code != 0 || hits3("/orphan2") != 1 || hits3("/robots.txt") != 0 {
		t.Errorf("--ignore-robots: exit %d, /orphan2 fetched %d times, robots.txt %d\n%s%s", r.code, hits3("/orphan2"), hits3("/robots.txt"), r.stdout, r.stderr)
	}
}

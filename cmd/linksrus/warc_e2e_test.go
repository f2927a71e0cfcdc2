package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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
		if p.Response.Header.Get("Content-Encoding") == "gzip" {
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

// writeSiteWARC writes, with the project's Writer, one WARC file of n
// responses of a site: HTML pages linking to the next three, an image
// every 7th and a 404 every 11th (responses an import skips). It returns
// the file's path.
func writeSiteWARC(t *testing.T, dir string, n int) string {
	t.Helper()
	w, err := warc.NewWriter(warc.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		u, _ := url.Parse(fmt.Sprintf("http://site.example/page/%d", i))
		req := &warc.Request{Method: http.MethodGet, URL: u, Header: http.Header{}}
		res := &warc.Response{StatusCode: 200, Proto: "HTTP/1.1", Header: http.Header{"Content-Type": {"text/html"}}}
		x := &warc.Exchange{URL: u.String(), Request: req, Response: res, Date: time.Date(2026, 11, 24, 12, 0, i, 0, time.UTC)}
		switch {
		case i%7 == 3:
			res.Header.Set("Content-Type", "image/png")
			res.Truncated = warc.TruncatedUnspecified
		case i%11 == 5:
			res.StatusCode = 404
			res.Truncated = warc.TruncatedUnspecified
		default:
			body := fmt.Sprintf("<title>page %d</title><p>%s</p>", i, strings.Repeat("words of the page ", 20))
			for j := i + 1; j <= i+3; j++ {
				body += fmt.Sprintf(`<a href="/page/%d">next</a>`, j)
			}
			res.Body = []byte(body)
		}
		res.Status = fmt.Sprintf("%d %s", res.StatusCode, http.StatusText(res.StatusCode))
		if err := w.Record(context.Background(), x); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	warcs, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	if len(warcs) != 1 {
		t.Fatalf("WARC files %v, want one", warcs)
	}
	return warcs[0]
}

// A WARC file cut in the middle of a record: every import into fresh
// stores takes the complete records before the cut, says how many, and
// the stores hold that many; then it fails on the cut. Importing the whole
// file afterwards completes the stores.
func TestImportTruncatedWARC(t *testing.T) {
	whole := t.TempDir()
	path := writeSiteWARC(t, whole, 600)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The middle of the response record over the file's middle, from the
	// file's CDXJ index.
	index, err := os.ReadFile(path + ".cdxj")
	if err != nil {
		t.Fatal(err)
	}
	cutAt := -1
	for line := range strings.Lines(string(index)) {
		var f struct{ Offset, Length string }
		if err := json.Unmarshal([]byte(line[strings.Index(line, "{"):]), &f); err != nil {
			t.Fatal(err)
		}
		off, _ := strconv.Atoi(f.Offset)
		length, _ := strconv.Atoi(f.Length)
		if off <= len(data)/2 && len(data)/2 < off+length {
			cutAt = off + length/2
		}
	}
	if cutAt < 0 {
		cutAt = len(data) / 2 // in the request record that follows a response
	}
	cut := t.TempDir()
	if err := os.WriteFile(filepath.Join(cut, filepath.Base(path)), data[:cutAt], 0o644); err != nil {
		t.Fatal(err)
	}
	// What the import must take: the responses before the cut.
	pages, skipped := 0, 0
	for p, err := range warc.ReadDir(context.Background(), cut, crawler.DefaultMaxBodyBytes) {
		if err != nil {
			break
		}
		if p.Response.StatusCode == 200 && p.Response.Header.Get("Content-Type") == "text/html" {
			pages++
		} else {
			skipped++
		}
	}
	if pages < 100 {
		t.Fatalf("%d pages before the cut", pages)
	}
	want := fmt.Sprintf("imported %d pages from %s (%d responses skipped)\n", pages, cut, skipped)

	var data1 string
	for run := range 3 {
		d := t.TempDir()
		r := linksrus(t, nil, "import", "--data", d, cut)
		if r.code != exitFailure || r.stdout != want ||
			!strings.Contains(r.stderr, filepath.Base(path)) || !strings.Contains(r.stderr, "unexpected EOF") {
			t.Fatalf("run %d: exit %d\n%s%s\nwant exit %d\n%s", run, r.code, r.stdout, r.stderr, exitFailure, want)
		}
		if st := statsJSON(t, d); st.Crawled != uint64(pages) || st.IndexedPages != uint64(pages) {
			t.Errorf("run %d: %d pages crawled, %d indexed, want %d", run, st.Crawled, st.IndexedPages, pages)
		}
		data1 = d
	}
	// The stores in memory: the same count.
	r := linksrus(t, nil, "import", "--graph", "memory://", "--index", "memory://", cut)
	if r.code != exitFailure || r.stdout != want {
		t.Errorf("import into memory: exit %d\n%s%s\nwant\n%s", r.code, r.stdout, r.stderr, want)
	}

	// The whole file completes the stores of a cut import: they end as
	// those of the whole file alone.
	r = linksrus(t, nil, "import", "--data", data1, whole)
	if r.code != 0 {
		t.Fatalf("import of the whole file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	fresh := t.TempDir()
	if r := linksrus(t, nil, "import", "--data", fresh, whole); r.code != 0 {
		t.Fatalf("import of the whole file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got, want := statsJSON(t, data1), statsJSON(t, fresh); got != want {
		t.Errorf("stats after the cut file, then the whole one %+v; after the whole one %+v", got, want)
	}
}

// An interrupted import stops reading the archive and stores the pages it
// read: the count it prints is what the stores hold. The archive is a
// named pipe, so that the import is still reading it when interrupted.
func TestInterruptedImport(t *testing.T) {
	whole := t.TempDir()
	path := writeSiteWARC(t, whole, 600)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(path + ".cdxj")
	if err != nil {
		t.Fatal(err)
	}
	// A record boundary in the middle: the offset of a response record.
	lines := strings.Split(strings.TrimSpace(string(index)), "\n")
	var f struct{ Offset string }
	line := lines[len(lines)/2]
	if err := json.Unmarshal([]byte(line[strings.Index(line, "{"):]), &f); err != nil {
		t.Fatal(err)
	}
	boundary, _ := strconv.Atoi(f.Offset)
	before := 0 // the pages before the boundary
	for p, err := range warc.Read(context.Background(), bytes.NewReader(data[:boundary]), "head", crawler.DefaultMaxBodyBytes) {
		if err != nil {
			t.Fatal(err)
		}
		if p.Response.StatusCode == 200 && p.Response.Header.Get("Content-Type") == "text/html" {
			before++
		}
	}

	archive := t.TempDir()
	fifo := filepath.Join(archive, "a.warc.gz")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	d := t.TempDir()
	cmd := exec.Command(linksrusBin, "import", "--data", d, archive)
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	noted, scanned := make(chan struct{}), make(chan struct{})
	var errText strings.Builder
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			errText.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "interrupted: storing the pages read") {
				close(noted)
			}
		}
	}()
	// The writing end opens once the import has opened the reading one.
	var w *os.File
	for deadline := time.Now().Add(30 * time.Second); w == nil; {
		if w, err = os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err != nil {
			if time.Now().After(deadline) {
				t.Fatalf("the import never opened the archive: %v", err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if _, err := w.Write(data[:boundary]); err != nil {
		t.Fatal(err)
	}
	// Time for the import to read what was written, so that it has pages
	// to store (the test holds whatever it read).
	time.Sleep(200 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-noted:
	case <-time.After(30 * time.Second):
		t.Fatal("no note of the interrupt")
	}
	w.Close()
	<-scanned // Wait closes the pipe: read it to its end first
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
		t.Fatalf("interrupted import: %v, want exit code %d\n%s%s", err, exitInterrupted, out.String(), errText.String())
	}
	var n, skipped int
	if _, err := fmt.Sscanf(out.String(), "imported %d pages from "+archive+" (%d responses skipped)\n", &n, &skipped); err != nil ||
		strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	if st := statsJSON(t, d); n > before || st.Crawled != uint64(n) || st.IndexedPages != uint64(n) {
		t.Errorf("imported %d pages (of %d written), stores hold %d crawled and %d indexed", n, before, st.Crawled, st.IndexedPages)
	}
	t.Logf("imported %d pages of the %d written before the interrupt", n, before)
}

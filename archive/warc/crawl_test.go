package warc_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"

	"github.com/linksrus/linksrus/archive/warc"
	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/linkgraph"
)

// bomb is a gzip stream of 1 GiB of zeros, about 1 MB long: 1,024 members
// of 1 MiB each (a gzip reader reads concatenated members as one stream).
var bomb = sync.OnceValue(func() []byte {
	return bytes.Repeat(gz(make([]byte, 1<<20)), 1024)
})

// sliceLinks is a linkgraph.LinkIterator over URLs.
type sliceLinks struct {
	urls []string
	i    int
}

func (it *sliceLinks) Next() bool            { it.i++; return it.i <= len(it.urls) }
func (it *sliceLinks) Error() error          { return nil }
func (it *sliceLinks) Close() error          { return nil }
func (it *sliceLinks) Link() *linkgraph.Link { return &linkgraph.Link{URL: it.urls[it.i-1]} }

// A crawl recording into a Writer: every page fetched is in the files, as
// the library's reader reads them; a 1 GiB gzip bomb and an endless body
// end as too large, their records no larger than the body limit.
func TestCrawlIntoWARC(t *testing.T) {
	const maxBody = 256 << 10 // below the bomb's 1 MB, compressed
	mux := http.NewServeMux()
	for i := range 5 {
		mux.HandleFunc(fmt.Sprintf("/page/%d", i), func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<title>page %d</title>", i)
		})
	}
	mux.HandleFunc("/bomb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(bomb())
	})
	mux.HandleFunc("/small-bomb", func(w http.ResponseWriter, r *http.Request) {
		// 64 MiB of zeros in 64 KB: within the limit as sent, not decoded.
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(bomb()[:64*len(bomb())/1024])
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		chunk := bytes.Repeat([]byte("<p>more"), 1000)
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	dir := t.TempDir()
	w, err := warc.NewWriter(warc.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]crawler.Reason{}
	var mu sync.Mutex
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.1/32")),
			MaxBodyBytes:           maxBody,
			FetchTimeout:           10 * time.Second,
			Recorder:               crawler.WARCRecorder(w),
		},
		OnOutcome: func(o crawler.Outcome) {
			mu.Lock()
			defer mu.Unlock()
			outcomes[o.URL] = o.Reason
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	urls := []string{srv.URL + "/bomb", srv.URL + "/small-bomb", srv.URL + "/endless"}
	for i := range 5 {
		urls = append(urls, fmt.Sprintf("%s/page/%d", srv.URL, i))
	}
	if _, err := c.Crawl(context.Background(), &sliceLinks{urls: urls}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, u := range urls[:3] {
		if outcomes[u] != crawler.ReasonTooLarge {
			t.Errorf("%s: %v, want too-large", u, outcomes[u])
		}
	}

	warcs := files(t, dir, ".warc.gz")
	if len(warcs) != 1 {
		t.Fatalf("files %v", warcs)
	}
	r, err := gowarc.NewWarcFileReader(warcs[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	seen := map[string]string{}
	for rec, err := range r.Records() {
		if err != nil {
			t.Fatal(err)
		}
		if rec.WarcRecord.Type() == gowarc.Response {
			h := rec.WarcRecord.WarcHeader()
			block := rec.WarcRecord.Block().(gowarc.HttpResponseBlock)
			p, err := block.PayloadBytes()
			if err != nil {
				t.Fatal(err)
			}
			n, _ := io.Copy(io.Discard, p)
			if n > maxBody {
				t.Errorf("%s: a body of %d bytes in the archive", h.Get(gowarc.WarcTargetURI), n)
			}
			seen[h.Get(gowarc.WarcTargetURI)] = h.Get(gowarc.WarcTruncated)
		}
		_ = rec.Close()
	}
	for _, u := range urls {
		if _, ok := seen[u]; !ok {
			t.Errorf("%s fetched but not in the archive", u)
		}
	}
	if seen[srv.URL+"/endless"] != "length" || seen[srv.URL+"/bomb"] != "length" || seen[srv.URL+"/small-bomb"] != "" {
		t.Errorf("WARC-Truncated: %v", seen)
	}
	checkIndex(t, warcs[0], len(urls))
}

// update rewrites the golden files of the tests that compare with one.
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// storedGzip is b gzipped without compression, built by hand from RFC
// 1952 and RFC 1951's stored block so that its bytes do not depend on the
// version of compress/gzip.
func storedGzip(b []byte) []byte {
	out := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}
	n := uint16(len(b))
	out = append(out, 1, byte(n), byte(n>>8), byte(^n), byte(^n>>8))
	out = append(out, b...)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(b))
	return binary.LittleEndian.AppendUint32(out, uint32(len(b)))
}

// archivedSite serves the responses of TestCrawlWARCBytes, the same bytes
// every time: no Date header, fixed bodies.
func archivedSite() http.Handler {
	const maxBody = 1024
	html := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, body)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("site.example/{$}", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<title>home</title><a href="/new">new</a>`)
	})
	mux.HandleFunc("site.example/gz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(storedGzip([]byte("<title>gzipped</title>")))
	})
	mux.HandleFunc("site.example/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/new", http.StatusMovedPermanently)
	})
	mux.HandleFunc("site.example/new", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		html(w, "<title>new</title>")
	})
	mux.HandleFunc("site.example/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such page", http.StatusNotFound)
	})
	mux.HandleFunc("site.example/picture", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("\x89PNG\r\n\x1a\nnot really"))
	})
	mux.HandleFunc("site.example/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", strconv.Itoa(4*maxBody))
		_, _ = w.Write(bytes.Repeat([]byte("<p>big"), 4*maxBody/6+1)[:4*maxBody])
	})
	mux.HandleFunc("site.example/endless", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		chunk := bytes.Repeat([]byte("<p>more"), 100)
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("site.example/search", func(w http.ResponseWriter, r *http.Request) {
		html(w, "<title>results for "+r.URL.Query().Get("q")+"</title>")
	})
	mux.HandleFunc("other.example/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("X-Multi", "one")
		w.Header().Add("X-Multi", "two")
		html(w, "<title>other</title>")
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Date"] = nil // suppressed: the responses must not change from run to run
		mux.ServeHTTP(w, r)
	})
}

// normalizedArchive returns the records of the WARC file at path, and its
// CDXJ index, as text that is the same for every crawl of archivedSite:
// record IDs, dates and the file's name replaced, and the exchanges (a
// response record and the request record after it), which the fetch
// workers write in any order, sorted. Every gzip member must hold one
// record.
func normalizedArchive(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	zr, err := gzip.NewReader(br)
	if err != nil {
		t.Fatal(err)
	}
	var records []string
	for {
		zr.Multistream(false)
		member, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(member, []byte("WARC/1.1\r\n")) || bytes.Count(member, []byte("\r\nWARC-Record-ID:")) != 1 {
			t.Fatalf("member %d is not one record: %.60q", len(records), member)
		}
		records = append(records, string(member))
		if err := zr.Reset(br); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	field := func(rec, name string) string {
		_, v, _ := strings.Cut(rec, "\r\n"+name+": ")
		v, _, _ = strings.Cut(v, "\r\n")
		return v
	}
	dates := regexp.MustCompile(`(?m)^(WARC-Date|WARC-Filename): .*\r$`)
	label := func(rec string, ids map[string]string) string {
		for id, l := range ids {
			rec = strings.ReplaceAll(rec, id, l)
		}
		return dates.ReplaceAllString(rec, "$1: (normalized)\r")
	}
	if field(records[0], "WARC-Type") != "warcinfo" {
		t.Fatalf("the file begins with a %s", field(records[0], "WARC-Type"))
	}
	info := map[string]string{field(records[0], "WARC-Record-ID"): "<warcinfo>"}
	var exchanges []string
	for i := 1; i < len(records); i++ {
		res := records[i]
		if field(res, "WARC-Type") != "response" {
			t.Fatalf("record %d is a %s, not a response", i, field(res, "WARC-Type"))
		}
		ids := map[string]string{field(res, "WARC-Record-ID"): "<response>"}
		maps.Copy(ids, info)
		x := label(res, ids)
		if i+1 < len(records) && field(records[i+1], "WARC-Type") == "request" {
			i++
			ids[field(records[i], "WARC-Record-ID")] = "<request>"
			x += label(records[i], ids)
		}
		exchanges = append(exchanges, x)
	}
	slices.Sort(exchanges)

	index, err := os.ReadFile(path + ".cdxj")
	if err != nil {
		t.Fatal(err)
	}
	place := regexp.MustCompile(`^(\S+) \d{14} (.*)"length":"\d+","offset":"\d+","filename":"[^"]*"}$`)
	var lines []string
	for l := range strings.Lines(string(index)) {
		lines = append(lines, place.ReplaceAllString(strings.TrimSuffix(l, "\n"), `$1 (date) $2"length":"(n)","offset":"(n)","filename":"(name)"}`)+"\n")
	}
	slices.Sort(lines)

	var out strings.Builder
	for _, part := range append(append([]string{label(records[0], info)}, exchanges...), strings.Join(lines, "")) {
		// A line of text per line of the record, quoted: the records'
		// CRs and binary bodies kept visible and intact.
		for l := range strings.Lines(part) {
			out.WriteString(strconv.Quote(l) + "\n")
		}
		out.WriteString("\n")
	}
	return out.String()
}

// A crawl's archive is byte for byte what it has always been, record IDs,
// dates and file names aside: the records the crawler's responses make
// (HTML, gzipped, a redirect hop and its target, a 404, an image, a body
// over the limit by its Content-Length and an endless one, a query, a host
// with a port), the requests with the headers the crawler sent (the
// credentials a decorator added left out) and the CDXJ index. The golden
// file was written by the package before it stood apart from the
// crawler; rewrite it with -update only for a change of format meant.
func TestCrawlWARCBytes(t *testing.T) {
	srv := httptest.NewServer(archivedSite())
	defer srv.Close()
	// Every host is the test server, so that the URLs (and the digests
	// of the records that hold them) are the same in every run.
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, srv.Listener.Addr().String())
	}}
	defer tr.CloseIdleConnections()

	dir := t.TempDir()
	w, err := warc.NewWriter(warc.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			URLGetter:    &http.Client{Transport: tr},
			MaxBodyBytes: 1024,
			FetchTimeout: 10 * time.Second,
			Recorder:     crawler.WARCRecorder(w),
			DecorateRequest: func(req *http.Request) error {
				req.Header.Set("Authorization", "Bearer s3cret")
				req.Header.Set("Cookie", "session=s3cret")
				req.Header.Set("X-Archive-Test", "yes")
				return nil
			},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, p := range []string{"/", "/gz", "/old", "/missing", "/picture", "/big", "/endless", "/search?q=a+b&x=1"} {
		urls = append(urls, "http://site.example"+p)
	}
	urls = append(urls, "http://other.example:8080/")
	if _, err := c.Crawl(context.Background(), &sliceLinks{urls: urls}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	warcs := files(t, dir, ".warc.gz")
	if len(warcs) != 1 {
		t.Fatalf("files %v, want one", warcs)
	}
	checkIndex(t, warcs[0], len(urls)+1) // the redirect's two responses
	// A Writer given no Software names the crawler, as it did when it
	// took the crawler's constant.
	if warc.DefaultSoftware != crawler.DefaultUserAgent {
		t.Errorf("warc.DefaultSoftware %q, crawler.DefaultUserAgent %q", warc.DefaultSoftware, crawler.DefaultUserAgent)
	}
	got := normalizedArchive(t, warcs[0])
	golden := filepath.Join("testdata", "crawl.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("the archive differs from %s at line %d:\n got %s\nwant %s", golden, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("the archive has %d lines, %s %d", len(gl), golden, len(wl))
	}
}

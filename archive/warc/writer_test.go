package warc_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"

	"github.com/linksrus/linksrus/archive/warc"
)

// exchange makes an Exchange for a GET of rawURL answered with status,
// headers and body.
func exchange(rawURL string, status int, header http.Header, body []byte, cut warc.Truncation) *warc.Exchange {
	u, _ := url.Parse(rawURL)
	req := &warc.Request{Method: http.MethodGet, URL: u, Header: http.Header{"User-Agent": {"test"}, "Accept-Encoding": {"gzip"}}}
	res := &warc.Response{StatusCode: status, Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), Proto: "HTTP/1.1", Header: header,
		Body: body, Truncated: cut}
	return &warc.Exchange{URL: rawURL, Request: req, Response: res, Date: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)}
}

func htmlHeader() http.Header { return http.Header{"Content-Type": {"text/html; charset=utf-8"}} }

func gz(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

func files(t *testing.T, dir, suffix string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "*"+suffix))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(matches)
	return matches
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	w, err := warc.NewWriter(warc.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	zipped := gz([]byte("<title>z</title>"))
	zh := htmlHeader()
	zh.Set("Content-Encoding", "gzip")
	xs := []*warc.Exchange{
		exchange("http://example.com/", 200, htmlHeader(), []byte("<title>home</title>"), ""),
		exchange("http://example.com/z", 200, zh, zipped, ""),
		exchange("http://example.com/big", 200, htmlHeader(), []byte("<p>cut"), warc.TruncatedLength),
		exchange("http://example.com/moved", 301, http.Header{"Location": {"/"}}, nil, warc.TruncatedUnspecified),
	}
	for _, x := range xs {
		if err := w.Record(context.Background(), x); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	warcs := files(t, dir, ".warc.gz")
	if len(warcs) != 1 {
		t.Fatalf("files %v, want one", warcs)
	}

	// The library's reader sees a warcinfo, then a response and a request
	// per exchange, the request concurrent to the response.
	r, err := gowarc.NewWarcFileReader(warcs[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var types []string
	var lastResponseID string
	var truncated []string
	for rec, err := range r.Records() {
		if err != nil {
			t.Fatal(err)
		}
		h := rec.WarcRecord.WarcHeader()
		types = append(types, rec.WarcRecord.Type().String())
		switch rec.WarcRecord.Type() {
		case gowarc.Response:
			lastResponseID = h.GetId(gowarc.WarcRecordID)
			if !h.Has(gowarc.WarcPayloadDigest) || !h.Has(gowarc.WarcDate) || !h.Has(gowarc.WarcTargetURI) || !h.Has(gowarc.WarcWarcinfoID) {
				t.Errorf("response record lacks fields: %s", h)
			}
			if h.Has(gowarc.WarcTruncated) {
				truncated = append(truncated, h.Get(gowarc.WarcTargetURI)+"="+h.Get(gowarc.WarcTruncated))
			}
			if digest := h.Get(gowarc.WarcPayloadDigest); h.Get(gowarc.WarcTargetURI) == "http://example.com/z" {
				block := rec.WarcRecord.Block().(gowarc.HttpResponseBlock)
				p, _ := block.PayloadBytes()
				body, _ := io.ReadAll(p)
				if !bytes.Equal(body, zipped) {
					t.Errorf("gzipped body not kept as sent")
				}
				if digest != block.PayloadDigest() {
					t.Errorf("payload digest %s, computed %s", digest, block.PayloadDigest())
				}
			}
		case gowarc.Request:
			if got := h.GetId(gowarc.WarcConcurrentTo); got != lastResponseID {
				t.Errorf("request concurrent to %q, want %q", got, lastResponseID)
			}
		}
		_ = rec.Close()
	}
	want := []string{"warcinfo", "response", "request", "response", "request", "response", "request", "response", "request"}
	if !slices.Equal(types, want) {
		t.Errorf("records %v, want %v", types, want)
	}
	if want := []string{"http://example.com/big=length", "http://example.com/moved=unspecified"}; !slices.Equal(truncated, want) {
		t.Errorf("truncated %v, want %v", truncated, want)
	}

	// One gzip member per record.
	if n := gzipMembers(t, warcs[0]); n != len(want) {
		t.Errorf("%d gzip members, want %d (one per record)", n, len(want))
	}

	// A CDXJ line per response, pointing at its member.
	checkIndex(t, warcs[0], len(xs))
}

// gzipMembers counts the gzip members of a file, checking that each holds
// exactly one WARC record.
func gzipMembers(t *testing.T, path string) int {
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
	n := 0
	for {
		zr.Multistream(false)
		member, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		n++
		if !bytes.HasPrefix(member, []byte("WARC/1.1\r\n")) || bytes.Count(member, []byte("\r\nWARC-Record-ID:")) != 1 {
			t.Errorf("member %d is not one record: %.60q", n, member)
		}
		if err := zr.Reset(br); err == io.EOF {
			return n
		} else if err != nil {
			t.Fatal(err)
		}
	}
}

// checkIndex checks the CDXJ index of a WARC file: sorted, n lines, each
// "SURT timestamp {json}" whose offset and length delimit its response.
func checkIndex(t *testing.T, path string, n int) {
	t.Helper()
	raw, err := os.ReadFile(path + ".cdxj")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != n || !slices.IsSorted(lines) {
		t.Fatalf("index of %d lines (sorted: %v), want %d sorted:\n%s", len(lines), slices.IsSorted(lines), n, raw)
	}
	for _, l := range lines {
		surt, rest, _ := strings.Cut(l, " ")
		ts, js, _ := strings.Cut(rest, " ")
		var f map[string]string
		if err := json.Unmarshal([]byte(js), &f); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if surt != warc.SURT(f["url"]) || len(ts) != 14 || f["filename"] != filepath.Base(path) || f["status"] == "" || f["digest"] == "" || f["mime"] == "" {
			t.Errorf("bad line %q", l)
		}
		off, _ := strconv.Atoi(f["offset"])
		length, _ := strconv.Atoi(f["length"])
		r, err := gowarc.NewWarcFileReaderFromStream(bytes.NewReader(data[off:off+length]), 0)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := r.Next()
		if err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if got := rec.WarcRecord.WarcHeader().Get(gowarc.WarcTargetURI); rec.WarcRecord.Type() != gowarc.Response || got != f["url"] {
			t.Errorf("line %q points at a %s of %s", l, rec.WarcRecord.Type(), got)
		}
		_ = rec.Close()
		r.Close()
	}
}

func TestRotation(t *testing.T) {
	dir := t.TempDir()
	w, err := warc.NewWriter(warc.Options{Dir: dir, MaxFileSize: 1}) // a file per exchange
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := w.Record(context.Background(), exchange(fmt.Sprintf("http://example.com/%d", i), 200, htmlHeader(), []byte("<p>x"), "")); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if files, responses := w.Stats(); files != 3 || responses != 3 {
		t.Errorf("Stats() = %d files, %d responses; want 3, 3", files, responses)
	}
	warcs := files(t, dir, ".warc.gz")
	if len(warcs) != 3 {
		t.Fatalf("%d files, want 3", len(warcs))
	}
	for _, f := range warcs {
		r, err := gowarc.NewWarcFileReader(f, 0)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := r.Next()
		if err != nil || rec.WarcRecord.Type() != gowarc.Warcinfo {
			t.Errorf("%s does not begin with a warcinfo: %v", f, err)
		}
		_ = rec.Close()
		r.Close()
		checkIndex(t, f, 1)
	}
	var urls []string
	for p, err := range warc.ReadDir(context.Background(), dir, 1<<20) {
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, p.URL)
	}
	if want := []string{"http://example.com/0", "http://example.com/1", "http://example.com/2"}; !slices.Equal(urls, want) {
		t.Errorf("read %v, want %v", urls, want)
	}
}

func TestConcurrentRecords(t *testing.T) {
	dir := t.TempDir()
	w, err := warc.NewWriter(warc.Options{Dir: dir, MaxFileSize: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				x := exchange(fmt.Sprintf("http://example.com/%d/%d", g, i), 200, htmlHeader(), bytes.Repeat([]byte("<p>x"), i), "")
				if err := w.Record(context.Background(), x); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for p, err := range warc.ReadDir(context.Background(), dir, 1<<20) {
		if err != nil {
			t.Fatal(err)
		}
		seen[p.URL] = true
	}
	if len(seen) != 160 {
		t.Errorf("read %d pages, want 160", len(seen))
	}
}

func TestWriterErrors(t *testing.T) {
	if _, err := warc.NewWriter(warc.Options{}); err == nil {
		t.Error("no error without a directory")
	}
	w, err := warc.NewWriter(warc.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Record(context.Background(), exchange("http://example.com/", 200, htmlHeader(), nil, "")); err == nil {
		t.Error("no error after Close")
	}
}

// Credentials a request decorator added stay out of the archive: request
// records leave out Authorization, Proxy-Authorization and Cookie.
func TestRequestRecordsLeaveOutCredentials(t *testing.T) {
	dir := t.TempDir()
	w, err := warc.NewWriter(warc.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	x := exchange("http://example.com/private", 200, htmlHeader(), []byte("<p>hi</p>"), "")
	x.Request.Header.Set("Authorization", "Bearer s3cret-token")
	x.Request.Header.Set("Proxy-Authorization", "Basic cHJveHk6czNjcmV0")
	x.Request.Header.Set("Cookie", "session=s3cret-cookie")
	if err := w.Record(context.Background(), x); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range files(t, dir, ".warc.gz") {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		all, err := io.ReadAll(zr) // every member, one after the other
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{"s3cret-token", "cHJveHk6czNjcmV0", "s3cret-cookie"} {
			if bytes.Contains(all, []byte(secret)) {
				t.Errorf("%s: the archive holds the credential %q", f, secret)
			}
		}
		if !bytes.Contains(all, []byte("User-Agent: test")) {
			t.Errorf("%s: the request record lost its other headers", f)
		}
	}
}

// The Writer writes what it always has, record IDs, dates and file names
// aside, for the exchanges a crawl does not make: an HTTP/1.0 response
// without a status text, an HTTP/2 one, a response without its request, a
// request without a method, header values with line breaks. (See
// TestCrawlWARCBytes for the ones it makes.)
func TestWriterBytes(t *testing.T) {
	dir := t.TempDir()
	w, err := warc.NewWriter(warc.Options{Dir: dir, Software: "test\r\nsoftware"})
	if err != nil {
		t.Fatal(err)
	}
	old := exchange("http://example.com/old", 200, htmlHeader(), []byte("<p>old"), "")
	old.Response.Proto, old.Response.Status = "HTTP/1.0", ""
	h2 := exchange("http://example.com/h2", 404, http.Header{"X-Broken": {"a\r\nInjected: yes"}}, nil, warc.TruncatedUnspecified)
	h2.Response.Proto = "HTTP/2.0"
	h2.Request.Method = ""
	h2.Request.Header.Set("X-Line", "b\nc")
	alone := exchange("http://example.com/alone", 200, htmlHeader(), []byte("<p>cut"), warc.TruncatedLength)
	alone.Request = nil
	for _, x := range []*warc.Exchange{old, h2, alone} {
		if err := w.Record(context.Background(), x); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	warcs := files(t, dir, ".warc.gz")
	if len(warcs) != 1 {
		t.Fatalf("files %v, want one", warcs)
	}
	got := normalizedArchive(t, warcs[0])
	golden := filepath.Join("testdata", "writer.golden")
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
		t.Fatalf("the archive differs from %s:\n%s", golden, got)
	}
}

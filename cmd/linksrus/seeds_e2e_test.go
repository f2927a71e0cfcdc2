package main

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// A robots.txt answering 503 twice then 200 costs the site nothing: it is
// crawled completely in the same run.
func TestCrawlRobotsUnavailableThenAvailable(t *testing.T) {
	var robotsCalls atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			if robotsCalls.Add(1) <= 2 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.Write([]byte("User-agent: *\nAllow: /\n"))
		case "/":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<a href="/a">a</a>`))
		case "/a":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<p>a</p>`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer s.Close()
	r := linksrus(t, nil, "crawl", "--data", t.TempDir(), "--allow-net", "127.0.0.0/8", s.URL+"/")
	if r.code != 0 || !strings.Contains(r.stdout, "crawled 2 pages") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// A seed that cannot be fetched at all makes the command fail with the
// error itself on stderr, not a bare reason name.
func TestCrawlUnreachableSeedFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connections are refused
	r := linksrus(t, nil, "crawl", "--data", t.TempDir(), "--allow-net", "127.0.0.0/8", "--retries", "1", "http://"+addr+"/")
	if r.code != exitFailure || !strings.Contains(r.stderr, "refused") || !strings.Contains(r.stderr, addr) {
		t.Fatalf("exit %d, want %d with the error\nstdout: %s\nstderr: %s", r.code, exitFailure, r.stdout, r.stderr)
	}
}

// A second run of a finished crawl finds nothing due, says so and exits 0.
func TestCrawlNothingDue(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<a href="/a">a</a> <a href="/">home</a>`))
	}))
	defer site.Close()
	data := t.TempDir()
	args := []string{"crawl", "--data", data, "--allow-net", "127.0.0.0/8", "--index", "none", site.URL + "/"}
	if r := linksrus(t, nil, args...); r.code != 0 {
		t.Fatalf("first run: exit %d: %s", r.code, r.stderr)
	}
	r := linksrus(t, nil, args...)
	if r.code != 0 || !strings.Contains(r.stdout, "nothing to crawl") {
		t.Fatalf("second run: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// --deny-net wins over --allow-net: the denied host is never requested.
func TestCrawlDenyNet(t *testing.T) {
	var hits atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer s.Close()
	r := linksrus(t, nil, "crawl", "--data", t.TempDir(), "--allow-net", "127.0.0.0/8", "--deny-net", "127.0.0.1/32", s.URL+"/")
	if hits.Load() != 0 {
		t.Errorf("the denied server got %d requests", hits.Load())
	}
	if r.code != exitFailure || !strings.Contains(r.stderr, "private") {
		t.Errorf("exit %d, want %d naming the private address\n%s", r.code, exitFailure, r.stderr)
	}
}

// The numbers a person reads are true: an offset past the end, links left
// out by scope apart from pages skipped, an index that holds none of the
// crawled pages explained.
func TestNumbersAreTrue(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<title>Gophers</title><p>gophers</p><a href="/a">a</a> <a href="http://other.example/">x</a>`))
	}))
	defer site.Close()
	data := t.TempDir()
	r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", "--index", "none", site.URL+"/")
	if r.code != 0 || !strings.Contains(r.stdout, "0 skipped") || !strings.Contains(r.stdout, "URLs left out of the crawl") ||
		!strings.Contains(r.stdout, "scope: other host") {
		t.Fatalf("crawl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = linksrus(t, nil, "search", "--data", data, "gophers")
	if !strings.Contains(r.stdout, "--index none") {
		t.Errorf("search of an index without the crawled pages:\n%s%s", r.stdout, r.stderr)
	}
	r = linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", site.URL+"/")
	if !strings.Contains(r.stdout, "nothing to crawl") || !strings.Contains(r.stdout, "--recrawl-after") {
		t.Errorf("crawl with an index after --index none:\n%s%s", r.stdout, r.stderr)
	}
	r = linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", "--recrawl-after", "1ns", site.URL+"/")
	if r.code != 0 {
		t.Fatalf("recrawl: exit %d: %s", r.code, r.stderr)
	}
	// "/" and /a are the same page: one result.
	r = linksrus(t, nil, "search", "--data", data, strings.Repeat("gophers ", 8000)+"tail")
	if r.code != 0 || !strings.Contains(r.stdout, "The query was cut") || !strings.Contains(r.stdout, "Results 1-1 of 1") {
		t.Errorf("a 64 KB query:\n%s%s", r.stdout, r.stderr)
	}
	r = linksrus(t, nil, "search", "--data", data, "--offset", "100000000", "gophers")
	if !strings.Contains(r.stdout, "No results past 100000000: 1 pages match") {
		t.Errorf("search past the end:\n%s%s", r.stdout, r.stderr)
	}
}

// A damaged graph.db is one line on stderr and exit 1 for every command
// that reads the graph, never a panic.
func TestCorruptGraphIsOneLine(t *testing.T) {
	site := newTestSite(t, 30, 0)
	data := t.TempDir()
	if r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", site.URL+"/"); r.code != 0 {
		t.Fatalf("crawl: exit %d: %s", r.code, r.stderr)
	}
	path := filepath.Join(data, "graph.db")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Garbage over everything but the meta pages: every tree page is hit.
	for i := 8192; i < len(b); i++ {
		b[i] = byte(i*7 + 3)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"crawl", "--data", data, "--allow-net", "127.0.0.0/8", site.URL + "/"},
		{"stats", "--data", data},
	} {
		r := linksrus(t, nil, args...)
		if r.code != exitFailure || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 ||
			!strings.Contains(r.stderr, "corrupt") || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("%s on a damaged graph: exit %d\n%s", args[0], r.code, r.stderr)
		}
	}
	// A search reads the index alone, which is intact.
	if r := linksrus(t, nil, "search", "--data", data, "gophers"); r.code != 0 || !strings.Contains(r.stdout, "about gophers") {
		t.Errorf("search beside a damaged graph: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// A damaged index.db stops every command that reads or writes the index
// before it fetches or writes anything: one line naming the file, exit 1.
// (A crawl used to warn, go on into the damaged file, mark the pages
// crawled in the graph, rank, and exit 0.)
func TestCorruptIndexStopsEveryCommandFirst(t *testing.T) {
	site := newTestSite(t, 200, 0)
	data := t.TempDir()
	r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", "--max-pages", "120", site.URL+"/")
	if r.code != 0 {
		t.Fatalf("crawl: exit %d: %s", r.code, r.stderr)
	}
	index := filepath.Join(data, "index.db")
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	// Garbage over the middle of the file, a few pages' worth.
	for i := len(b) / 2; i < len(b)/2+16<<10 && i < len(b); i++ {
		b[i] = byte(i*7 + 3)
	}
	if err := os.WriteFile(index, b, 0o600); err != nil {
		t.Fatal(err)
	}
	graphBefore, err := os.ReadFile(filepath.Join(data, "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	fetchedBefore := site.fetched()
	for _, args := range [][]string{
		{"crawl", "--data", data, "--allow-net", "127.0.0.0/8", site.URL + "/"},
		{"crawl", "--data", data, "--allow-net", "127.0.0.0/8", "--recrawl-after", "1ns", site.URL + "/"},
		{"search", "--data", data, "gophers"},
		{"stats", "--data", data},
		{"rank", "--data", data},
	} {
		r := linksrus(t, nil, args...)
		if r.code != exitFailure || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 ||
			!strings.Contains(r.stderr, "corrupt") || !strings.Contains(r.stderr, index) || !strings.Contains(r.stderr, "move it away") {
			t.Errorf("%s on a damaged index: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
	}
	if n := site.fetched() - fetchedBefore; n != 0 {
		t.Errorf("%d pages fetched with a damaged index", n)
	}
	if after, err := os.ReadFile(filepath.Join(data, "graph.db")); err != nil || !bytes.Equal(after, graphBefore) {
		t.Errorf("the graph changed while the index was damaged (%v)", err)
	}
	if after, _ := os.ReadFile(index); !bytes.Equal(after, b) {
		t.Errorf("the damaged index was written to")
	}
}

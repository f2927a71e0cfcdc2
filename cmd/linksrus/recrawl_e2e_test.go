package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// validatingSite serves a testSite as nginx serves files: every page with
// an ETag (a hash of its body) and a Last-Modified, and 304 Not Modified to
// a request whose If-None-Match matches. It counts statuses per page and
// the body bytes it sent.
type validatingSite struct {
	*httptest.Server
	pages *testSite

	mu        sync.Mutex
	statuses  map[int]int
	bodyBytes int
}

func newValidatingSite(t *testing.T, n int) *validatingSite {
	s := &validatingSite{pages: &testSite{n: n, fetches: map[string]int{}}, statuses: map[int]int{}}
	modified := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC).Format(http.TimeFormat)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		s.pages.serve(rec, r)
		status := rec.Code
		if status == http.StatusOK {
			h := fnv.New64a()
			h.Write(rec.Body.Bytes())
			etag := fmt.Sprintf(`"%x"`, h.Sum64())
			w.Header().Set("ETag", etag)
			w.Header().Set("Last-Modified", modified)
			if r.Header.Get("If-None-Match") == etag {
				status = http.StatusNotModified
			}
		}
		s.mu.Lock()
		if r.URL.Path != "/robots.txt" {
			s.statuses[status]++
		}
		if status == http.StatusOK && r.Method == http.MethodGet {
			s.bodyBytes += rec.Body.Len()
		}
		s.mu.Unlock()
		if status == http.StatusNotModified {
			w.WriteHeader(status)
			return
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(s.Close)
	return s
}

// take returns the statuses answered and body bytes sent so far, and
// starts counting again.
func (s *validatingSite) take() (map[int]int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, b := s.statuses, s.bodyBytes
	s.statuses, s.bodyBytes = map[int]int{}, 0
	return st, b
}

// A recrawl of an unchanged site with the embedded stores: every page is
// asked for with its validators and answered 304, no page body crosses
// the wire, the summary and report count the pages unchanged, and the
// stores answer as before.
func TestRecrawlOfUnchangedSiteTransfersNoBodies(t *testing.T) {
	site := newValidatingSite(t, 30)
	data := t.TempDir()
	crawl := func(args ...string) result {
		t.Helper()
		r := linksrus(t, nil, append([]string{"crawl", "--data", data, "--allow-net", "127.0.0.0/8", "--ignore-robots"}, args...)...)
		if r.code != 0 {
			t.Fatalf("crawl %q exited %d: %s", args, r.code, r.stderr)
		}
		return r
	}
	if r := crawl(site.URL + "/"); !strings.Contains(r.stdout, "ranked ") {
		t.Errorf("first crawl did not rank:\n%s", r.stdout)
	}
	first, bytes1 := site.take()
	if first[http.StatusOK] != site.pages.reachable() || first[http.StatusNotModified] != 0 || bytes1 == 0 {
		t.Fatalf("first crawl answered %v with %d body bytes, want %d 200s", first, bytes1, site.pages.reachable())
	}
	// A crawl that fetches no page (the missing pages are asked for
	// again, as every run does) changes nothing, and leaves the scores
	// vouched for: the recrawl below need not rank again.
	if r := crawl(site.URL + "/"); !strings.Contains(r.stdout, "crawled 0 pages") {
		t.Fatalf("second crawl fetched pages:\n%s", r.stdout)
	}
	statsBefore := linksrus(t, nil, "stats", "--data", data, "--json").stdout
	searchBefore := linksrus(t, nil, "search", "--data", data, "--json", "zanzibar").stdout

	time.Sleep(20 * time.Millisecond)
	report := filepath.Join(t.TempDir(), "report.json")
	r := crawl("--recrawl-after", "10ms", "--report", report, site.URL+"/")
	second, bytes2 := site.take()
	// The missing pages the site links to are asked for again (a 404 is
	// not a retrieval); every page is a 304.
	if second[http.StatusNotModified] != site.pages.reachable() || second[http.StatusOK] != 0 || bytes2 != 0 {
		t.Fatalf("recrawl answered %v with %d page bytes, want %d 304s and no 200", second, bytes2, site.pages.reachable())
	}
	if !strings.Contains(r.stdout, "PageRank not computed again") || strings.Contains(r.stdout, "ranked ") {
		t.Errorf("recrawl of an unchanged site ranked again:\n%s", r.stdout)
	}
	if want := fmt.Sprintf("%d of the pages unchanged", site.pages.reachable()); !strings.Contains(r.stdout, want) {
		t.Errorf("recrawl summary does not say %q:\n%s", want, r.stdout)
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Summary struct{ Pages, Unchanged int }
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Pages != site.pages.reachable() || rep.Summary.Unchanged != site.pages.reachable() {
		t.Errorf("report summary %+v, want every page crawled and unchanged", rep.Summary)
	}
	if got := linksrus(t, nil, "stats", "--data", data, "--json").stdout; !sameStats(t, got, statsBefore) {
		t.Errorf("stats after the recrawl:\n%s\nbefore:\n%s", got, statsBefore)
	}
	if got := linksrus(t, nil, "search", "--data", data, "--json", "zanzibar").stdout; got != searchBefore {
		t.Errorf("search after the recrawl:\n%s\nbefore:\n%s", got, searchBefore)
	}

	// Every page unchanged again, but the graph gained a link (a seed
	// that is not there): the scores of the last ranking no longer hold.
	time.Sleep(20 * time.Millisecond)
	r = crawl("--recrawl-after", "10ms", site.URL+"/", site.URL+"/page/9999")
	if !strings.Contains(r.stdout, "ranked ") {
		t.Errorf("recrawl that added a link did not rank again:\n%s", r.stdout)
	}
	// An interrupted or failed crawl leaves no marker behind, so the next
	// one ranks: simulated by a crawl with ranking off, which takes the
	// marker away as any crawl does.
	time.Sleep(20 * time.Millisecond)
	crawl("--recrawl-after", "10ms", "--rank=false", site.URL+"/")
	time.Sleep(20 * time.Millisecond)
	if r = crawl("--recrawl-after", "10ms", site.URL+"/"); !strings.Contains(r.stdout, "ranked ") {
		t.Errorf("crawl after one that did not rank did not rank:\n%s", r.stdout)
	}
}

// sameStats compares two `stats --json` outputs on their counts (sizes on
// disk may move with the rewritten link records).
func sameStats(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y graphStats
	if err := json.NewDecoder(bytes.NewReader([]byte(a))).Decode(&x); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, a)
	}
	if err := json.NewDecoder(bytes.NewReader([]byte(b))).Decode(&y); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, b)
	}
	return x.URLs == y.URLs && x.Crawled == y.Crawled && x.IndexedPages == y.IndexedPages && x.Links == y.Links
}

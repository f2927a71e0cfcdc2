package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// dupSite serves one page under four URLs (one reached by a redirect), and two
// long pages that differ in one word; the mirror's text can be changed.
type dupSite struct {
	*httptest.Server
	mirrorChanged atomic.Bool
}

const dupText = "A duplicated page about the quick brown fox and its den."

func newDupSite(t *testing.T) *dupSite {
	s := &dupSite{}
	var release strings.Builder
	for n := range 300 {
		fmt.Fprintf(&release, "Change %d of this release makes the crawler better in way %d. ", n, n*7)
	}
	page := func(w http.ResponseWriter, title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><p>%s</p></body></html>", title, body)
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>Home</title></head><body>`+
				`<a href="/a">a</a> <a href="/a?lang=en">a</a> <a href="/mirror/a">m</a> <a href="/old">old</a>`+
				`<a href="/notes/monday">n1</a> <a href="/notes/tuesday">n2</a></body></html>`)
		case "/a", "/a/":
			page(w, "Fox", dupText)
		case "/mirror/a":
			if s.mirrorChanged.Load() {
				page(w, "Fox", "The mirror now carries a zebra story instead.")
				return
			}
			page(w, "Fox", dupText)
		case "/old":
			// To a URL no page links to: a redirect to a page the crawl
			// fetches anyway is skipped as a duplicate fetch.
			http.Redirect(w, r, "/a/", http.StatusMovedPermanently)
		case "/notes/monday":
			page(w, "Release notes", "Posted on Monday. "+release.String())
		case "/notes/tuesday":
			page(w, "Release notes", "Posted on Tuesday. "+release.String())
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

type searchJSON struct {
	Total   int
	Results []struct {
		URL            string
		AlsoAt         []string               `json:"also_at"`
		NearDuplicates []struct{ URL string } `json:"near_duplicates"`
	}
}

func searchFor(t *testing.T, data string, words ...string) searchJSON {
	t.Helper()
	r := linksrus(t, nil, append([]string{"search", "--data", data, "--json"}, words...)...)
	if r.code != 0 {
		t.Fatalf("search %q exited %d: %s", words, r.code, r.stderr)
	}
	var out searchJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("search --json: %v\n%s", err, r.stdout)
	}
	return out
}

// TestDuplicatesEndToEnd: the same page under three URLs, and a redirect
// to it, is one search result listing the others; near-duplicates are
// grouped in results and in the report; a page whose text changes leaves
// its group on the next crawl.
func TestDuplicatesEndToEnd(t *testing.T) {
	site := newDupSite(t)
	data := filepath.Join(t.TempDir(), "data")
	report := filepath.Join(t.TempDir(), "report.json")
	r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", "--report", report, site.URL+"/")
	if r.code != 0 {
		t.Fatalf("crawl exited %d: %s", r.code, r.stderr)
	}

	got := searchFor(t, data, "quick", "brown", "fox")
	// Canonical order: the shortest URL first, the redirect last.
	want := []string{site.URL + "/a/", site.URL + "/mirror/a", site.URL + "/a?lang=en", site.URL + "/old"}
	if got.Total != 1 || len(got.Results) != 1 || got.Results[0].URL != site.URL+"/a" || !slices.Equal(got.Results[0].AlsoAt, want) {
		t.Fatalf("search fox: got %+v, want one result %s also at %q", got, site.URL+"/a", want)
	}
	r = linksrus(t, nil, "search", "--data", data, "fox")
	if r.code != 0 || !strings.Contains(r.stdout, "also at "+site.URL+"/mirror/a") {
		t.Fatalf("search fox (text): exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	got = searchFor(t, data, "release", "crawler")
	if got.Total != 2 || len(got.Results) != 1 || len(got.Results[0].NearDuplicates) != 1 {
		t.Fatalf("search release: got %+v, want the two notes as one result with a near-duplicate", got)
	}
	notes := []string{got.Results[0].URL, got.Results[0].NearDuplicates[0].URL}
	slices.Sort(notes)
	if !slices.Equal(notes, []string{site.URL + "/notes/monday", site.URL + "/notes/tuesday"}) {
		t.Fatalf("search release: grouped %q", notes)
	}

	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Duplicates     []struct{ URLs []string } `json:"duplicates"`
		NearDuplicates []struct {
			URLs        []string
			MaxDistance int `json:"max_distance_bits"`
		} `json:"near_duplicates"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("report: %v", err)
	}
	wantDup := []string{site.URL + "/a", site.URL + "/mirror/a", site.URL + "/a?lang=en"}
	if len(rep.Duplicates) != 1 || !slices.Equal(rep.Duplicates[0].URLs, wantDup) {
		t.Fatalf("report duplicates = %+v, want %q", rep.Duplicates, wantDup)
	}
	wantNear := []string{site.URL + "/notes/monday", site.URL + "/notes/tuesday"}
	if len(rep.NearDuplicates) != 1 || !slices.Equal(rep.NearDuplicates[0].URLs, wantNear) || rep.NearDuplicates[0].MaxDistance > 3 {
		t.Fatalf("report near_duplicates = %+v, want %q", rep.NearDuplicates, wantNear)
	}

	// The mirror changes: a re-crawl moves it out of the group.
	site.mirrorChanged.Store(true)
	r = linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", "--recrawl-after", "1ns", site.URL+"/")
	if r.code != 0 {
		t.Fatalf("re-crawl exited %d: %s", r.code, r.stderr)
	}
	got = searchFor(t, data, "quick", "brown", "fox")
	want = []string{site.URL + "/a/", site.URL + "/a?lang=en", site.URL + "/old"}
	if got.Total != 1 || len(got.Results) != 1 || got.Results[0].URL != site.URL+"/a" || !slices.Equal(got.Results[0].AlsoAt, want) {
		t.Fatalf("after the change, search fox: got %+v, want %s also at %q", got, site.URL+"/a", want)
	}
	got = searchFor(t, data, "zebra")
	if got.Total != 1 || got.Results[0].URL != site.URL+"/mirror/a" || len(got.Results[0].AlsoAt) != 0 {
		t.Fatalf("after the change, search zebra: got %+v, want the mirror alone", got)
	}
}

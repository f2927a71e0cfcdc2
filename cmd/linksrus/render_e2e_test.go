package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/linksrus/linksrus/internal/jsweb"
)

// TestCrawlJavaScriptSiteFindsTheShell: a crawl of the HTML as served
// finds, of a site built by JavaScript (internal/jsweb), the shell and
// nothing else: none of the pages a person clicking through reaches, none
// of the text fetched after load, and it runs no script (the API and the
// script are never requested). This is the baseline a crawl that renders
// pages must improve on (#27).
func TestCrawlJavaScriptSiteFindsTheShell(t *testing.T) {
	s, err := jsweb.Start(jsweb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	data := t.TempDir()
	if r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", s.URL()+"/"); r.code != 0 {
		t.Fatalf("crawl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	search := func(q string) []string {
		t.Helper()
		r := linksrus(t, nil, "search", "--data", data, "--json", q)
		var out struct {
			Results []struct {
				URL string `json:"url"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("search --json %s: %v\n%s%s", q, err, r.stdout, r.stderr)
		}
		var urls []string
		for _, res := range out.Results {
			urls = append(urls, strings.TrimPrefix(res.URL, s.URL()))
		}
		return urls
	}
	if got := search("quokka docs"); !slices.Equal(got, jsweb.Shell()) {
		t.Errorf("the site's pages found: %v, want the shell %v", got, jsweb.Shell())
	}
	for _, route := range s.Pages() {
		if w := jsweb.LateWord(route); w != "" {
			if got := search(w); len(got) != 0 {
				t.Errorf("%s's text fetched after load (%s) found at %v", route, w, got)
			}
		}
		if route != "/" && s.Requests(route) != 0 {
			t.Errorf("%s requested %d times by a crawl that runs no script", route, s.Requests(route))
		}
	}
	for _, path := range []string{"/app.js", "/api/nav.json", "/api/page/home"} {
		if n := s.Requests(path); n != 0 {
			t.Errorf("%s requested %d times", path, n)
		}
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/linksrus/linksrus/textindex"
)

// A crawl ranks the pages at its end: search --json shows non-zero
// PageRank, and the home page, linked from every page, ranks above a leaf
// for a word both contain.
func TestCrawlRanksPages(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<title>Home</title><p>gopher home</p><a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>`)
		case "/a", "/b":
			fmt.Fprintf(w, `<title>%s</title><p>other words</p><a href="/">home</a>`, r.URL.Path)
		case "/c":
			fmt.Fprint(w, `<title>Leaf</title><p>gopher gopher gopher leaf</p>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	data := t.TempDir()
	r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", site.URL+"/")
	if r.code != 0 || !strings.Contains(r.stdout, "ranked 4 URLs") {
		t.Fatalf("crawl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = linksrus(t, nil, "search", "--data", data, "--json", "gopher")
	var out struct {
		Results []struct {
			URL       string  `json:"url"`
			Relevance float64 `json:"relevance"`
			PageRank  float64 `json:"pagerank"`
			Prior     float64 `json:"prior"`
			Score     float64 `json:"score"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("search --json: %v\n%s", err, r.stdout)
	}
	if len(out.Results) != 2 || out.Results[0].URL != site.URL+"/" || out.Results[0].PageRank <= out.Results[1].PageRank || out.Results[1].PageRank <= 0 {
		t.Errorf("results %+v: want the home page first, both with PageRank", out.Results)
	}
	// The score explained: relevance + prior, the prior of PageRank
	// (relative to the average page: the four URLs' average 1).
	sum := 0.0
	for _, res := range out.Results {
		sum += res.PageRank
		prior := textindex.DefaultWeights.Prior(res.PageRank)
		if res.Relevance <= 0 || math.Abs(res.Prior-prior) > 1e-12 || math.Abs(res.Score-(res.Relevance+res.Prior)) > 1e-12 {
			t.Errorf("result %+v: want relevance > 0, prior %v and score = relevance + prior", res, prior)
		}
	}
	if sum >= 4 || sum < 1 {
		t.Errorf("PageRanks %+v: want them relative to the average of the four URLs ranked (sum below 4)", out.Results)
	}
	if r := linksrus(t, nil, "rank", "--data", data); r.code != 0 || !strings.Contains(r.stdout, "ranked 4 URLs") {
		t.Errorf("rank: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

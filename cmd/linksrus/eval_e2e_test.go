package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linksrus/linksrus/internal/pgtest"
)

// evalSite is a small site whose ranking for a few queries is plain from
// its text: "walrus" is the title and most of the text of walrus.html and
// a word in zoo.html, so zoo.html comes second; dup/kelp.html has the
// text of kelp.html, so it is shown as that result's "also at"; robots.txt
// keeps crawlers out of zoo.html.
func evalSite(t *testing.T) *httptest.Server {
	pages := map[string]struct{ title, body string }{
		"/walrus.html":   {"Walrus", "The walrus is a large marine mammal. A walrus has tusks; every walrus likes cold water."},
		"/zoo.html":      {"City zoo", "The zoo keeps lions, tigers, bears, penguins, parrots, tortoises, camels, giraffes and one walrus."},
		"/kelp.html":     {"Kelp forests", "Kelp forests grow in cold, shallow water near rocky coasts."},
		"/dup/kelp.html": {"Kelp forests", "Kelp forests grow in cold, shallow water near rocky coasts."},
		"/otter.html":    {"Sea otter", "The sea otter floats on its back and eats urchins."},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /zoo.html\n")
			return
		case "/", "/index.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>Animals</title></head><body><p>Pages:`)
			for i, p := range []string{"walrus.html", "zoo.html", "kelp.html", "dup/kelp.html", "otter.html"} {
				fmt.Fprintf(w, ` <a href="%s">page %d</a>`, p, i+1)
			}
			fmt.Fprint(w, `</p></body></html>`)
			return
		}
		p, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><h1>%s</h1><p>%s</p></body></html>", p.title, p.title, p.body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// evalJudged is the judged set of evalSite. By hand, with zoo.html
// crawled: walrus 2 (walrus.html first), kelp forests 1 (at dup/kelp.html,
// the same text), urchins 1, penguins - (walrus.html does not have the
// word), marine mammal 1: MRR@10 (1/2+1+1+0+1)/5 = 0.700, success@1 3 of
// 5, success@3 4 of 5. Without zoo.html (robots.txt obeyed), walrus is -
// too: MRR@10 0.600, success@1 3, success@3 3.
const evalJudged = "walrus\tzoo.html\n" +
	"kelp forests\tdup/kelp.html\n" +
	"urchins\totter.html\n" +
	"penguins\twalrus.html\n" +
	"marine mammal\twalrus.html\n"

func writeJudged(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "judged.tsv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// places returns each query's place column of eval's table, and its last
// line (the scores).
func places(t *testing.T, out string) (map[string]string, string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "place") {
		t.Fatalf("eval printed no table:\n%s", out)
	}
	got := map[string]string{}
	for _, l := range lines[1 : len(lines)-1] {
		f := strings.Fields(l)
		// The query is the words after the place up to the found page
		// (one with a dot) or the parenthesis.
		var q []string
		for _, w := range f[1:] {
			if strings.Contains(w, ".") || strings.HasPrefix(w, "(") {
				break
			}
			q = append(q, w)
		}
		got[strings.Join(q, " ")] = f[0]
	}
	return got, lines[len(lines)-1]
}

func TestEvalCrawlsAndScores(t *testing.T) {
	site := evalSite(t)
	judged := writeJudged(t, evalJudged)
	data := t.TempDir()
	r := linksrus(t, nil, "eval", "--data", data, "--judged", judged,
		"--crawl", site.URL+"/index.html", "--allow-net", "127.0.0.0/8", "--ignore-robots")
	if r.code != 0 {
		t.Fatalf("eval exited %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	want := map[string]string{"walrus": "2", "kelp forests": "1", "urchins": "1", "penguins": "-", "marine mammal": "1"}
	got, scores := places(t, r.stdout)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("places %v, want %v\n%s", got, want, r.stdout)
	}
	if scores != "MRR@10 0.700  success@1 3/5  success@3 4/5" {
		t.Errorf("scores %q, want MRR@10 0.700  success@1 3/5  success@3 4/5", scores)
	}
	if !strings.Contains(r.stdout, "walrus.html)") || !strings.Contains(r.stderr, "crawled 6 pages") {
		t.Errorf("eval does not say what came first, or the crawl's summary is not on stderr:\n%s\n%s", r.stdout, r.stderr)
	}

	// The same index, evaluated again without a crawl (read-only, as
	// search reads it), with --base naming the root: the same figures.
	r = linksrus(t, nil, "eval", "--data", data, "--judged", judged, "--base", site.URL+"/")
	if _, s := places(t, r.stdout); r.code != 0 || s != scores {
		t.Errorf("eval of the crawled data: exit %d, scores %q, want %q\n%s", r.code, s, scores, r.stderr)
	}
}

// The in-memory stores, which only a crawl in the same process can fill;
// robots.txt obeyed without --ignore-robots, so zoo.html is not there.
func TestEvalMemoryJSON(t *testing.T) {
	site := evalSite(t)
	judged := writeJudged(t, evalJudged)
	r := linksrus(t, nil, "eval", "--graph", "memory://", "--index", "memory://", "--json", "--judged", judged,
		"--crawl", site.URL+"/index.html", "--allow-net", "127.0.0.0/8")
	if r.code != 0 {
		t.Fatalf("eval exited %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	var got struct {
		Base     string
		MRR      float64 `json:"mrr_at_10"`
		S1       int     `json:"success_at_1"`
		S3       int     `json:"success_at_3"`
		Queries  int
		Outcomes []struct {
			Line    int
			Query   string
			Place   int
			Found   string
			Results []string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, r.stdout)
	}
	if got.Base != site.URL+"/index.html" || got.Queries != 5 || got.MRR != 0.6 || got.S1 != 3 || got.S3 != 3 || len(got.Outcomes) != 5 {
		t.Fatalf("eval --json = %+v, want MRR@10 0.6, success@1 3, success@3 3 of 5 queries", got)
	}
	want := []struct {
		query string
		place int
		found string
	}{
		{"walrus", 0, ""}, {"kelp forests", 1, "/dup/kelp.html"}, {"urchins", 1, "/otter.html"},
		{"penguins", 0, ""}, {"marine mammal", 1, "/walrus.html"},
	}
	for i, w := range want {
		o := got.Outcomes[i]
		if o.Line != i+1 || o.Query != w.query || o.Place != w.place || (w.found != "" && o.Found != site.URL+w.found) {
			t.Errorf("outcome %d = %+v, want %s at %d (%s)", i, o, w.query, w.place, w.found)
		}
	}
	if len(got.Outcomes[0].Results) != 1 || got.Outcomes[0].Results[0] != site.URL+"/walrus.html" {
		t.Errorf("walrus results %v, want walrus.html alone (zoo.html is disallowed)", got.Outcomes[0].Results)
	}
}

// A PostgreSQL graph and index: the crawl is one process of a shared
// crawl, and the ranking is computed after it as `linksrus rank` would.
func TestEvalPostgres(t *testing.T) {
	dsn := pgtest.Database(t, "cmd")
	site := evalSite(t)
	judged := writeJudged(t, evalJudged)
	r := linksrus(t, nil, "eval", "--graph", dsn, "--index", dsn, "--judged", judged,
		"--crawl", site.URL+"/index.html", "--allow-net", "127.0.0.0/8", "--ignore-robots")
	if r.code != 0 {
		t.Fatalf("eval exited %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, s := places(t, r.stdout); s != "MRR@10 0.700  success@1 3/5  success@3 4/5" {
		t.Errorf("scores %q, want MRR@10 0.700  success@1 3/5  success@3 4/5\n%s", s, r.stdout)
	}
	if !strings.Contains(r.stderr, "ranked ") {
		t.Errorf("the PostgreSQL graph was not ranked after the crawl:\n%s", r.stderr)
	}
}

func TestEvalMistakes(t *testing.T) {
	site := evalSite(t)
	data := t.TempDir()
	judged := writeJudged(t, evalJudged)
	r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", site.URL+"/")
	if r.code != 0 {
		t.Fatalf("crawl: exit %d: %s", r.code, r.stderr)
	}
	bad := writeJudged(t, "walrus\tzoo.html\nkelp forests dup/kelp.html\n")
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no judged set", []string{"--base", site.URL}, exitUsage, "--judged FILE is required"},
		{"no base", []string{"--judged", judged}, exitUsage, "--base URL is required without --crawl"},
		{"crawl flag without crawl", []string{"--judged", judged, "--base", site.URL, "--allow-net", "127.0.0.0/8"}, exitUsage, "apply to --crawl"},
		{"bad base", []string{"--judged", judged, "--base", "ftp://x/"}, exitUsage, "--base"},
		{"bad seed", []string{"--judged", judged, "--crawl", "notaurl"}, exitUsage, "--crawl"},
		{"no index", []string{"--judged", judged, "--base", site.URL, "--index", "none"}, exitUsage, "no index to evaluate"},
		{"negative weight", []string{"--judged", judged, "--base", site.URL, "--weights", "title=-1"}, exitUsage, "for flag -weights: textindex: invalid field weights"},
		{"unknown field", []string{"--judged", judged, "--base", site.URL, "--weights", "heading=3"}, exitUsage, `unknown weight "heading"`},
		{"weight not a number", []string{"--judged", judged, "--base", site.URL, "--weights", "title=ten"}, exitUsage, `"title=ten" is not name=weight`},
		{"malformed judged set", []string{"--judged", bad, "--base", site.URL}, exitFailure, bad + ": line 2: no tab"},
		{"missing judged set", []string{"--judged", bad + ".gone", "--base", site.URL}, exitFailure, "no such file"},
		{"no data", []string{"--data", filepath.Join(data, "nothing"), "--judged", judged, "--base", site.URL}, exitFailure, "no index in"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"eval", "--data", data}, c.args...)
			r := linksrus(t, nil, args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.stderr) {
				t.Errorf("eval %v: exit %d, stderr %q; want exit %d saying %q", c.args, r.code, r.stderr, c.code, c.stderr)
			}
			if strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
				t.Errorf("eval %v: more than a line and a hint:\n%s", c.args, r.stderr)
			}
		})
	}

	// Weights of one's own: a field left out keeps its default.
	r = linksrus(t, nil, "eval", "--data", data, "--judged", judged, "--base", site.URL+"/index.html", "--weights", "title=1,url=1")
	if r.code != 0 || !strings.Contains(r.stdout, "MRR@10") {
		t.Errorf("eval --weights title=1,url=1: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// A --base the judged pages are not relative to: every query misses,
	// and eval says why rather than only printing zeros.
	r = linksrus(t, nil, "eval", "--data", data, "--judged", judged, "--base", "http://elsewhere.test/")
	if r.code != 0 || !strings.Contains(r.stdout, "MRR@10 0.000") || !strings.Contains(r.stderr, "no result of any judged query is under --base http://elsewhere.test/") {
		t.Errorf("eval with another --base: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

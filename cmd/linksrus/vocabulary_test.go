package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// One vocabulary in everything a person or a script reads: a URL is an
// address the graph knows, a page a URL that was fetched, a link a
// hyperlink from a page to a URL (the graph's edge). The words of the
// crawl summary, stats, the report, the metrics, the status page and
// README agree, and every key or name renamed to get there is listed in
// CHANGES.md with its old name.
func TestOneVocabulary(t *testing.T) {
	site := newTestSite(t, 20, 0)
	data := t.TempDir()
	report := filepath.Join(t.TempDir(), "report.json")
	r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", "--max-pages", "10", "--report", report, site.URL+"/")
	if r.code != 0 {
		t.Fatalf("crawl: exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"links found)", "ranked ", " URLs over "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("crawl summary lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "links left") || strings.Contains(r.stdout, " edges") {
		t.Errorf("crawl summary uses the old words:\n%s", r.stdout)
	}
	r = linksrus(t, nil, "stats", "--data", data)
	for _, want := range []string{"URLs known", "crawled", "not fetched", "links ", "pages indexed"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stats lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "edges") || strings.Contains(r.stdout, "links known") {
		t.Errorf("stats uses the old words:\n%s", r.stdout)
	}
	r = linksrus(t, nil, "stats", "--data", data, "--json")
	var stats map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &stats); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, r.stdout)
	}
	for _, k := range []string{"urls", "crawled", "not_fetched", "links", "indexed_pages"} {
		if _, ok := stats[k]; !ok {
			t.Errorf("stats --json lacks %q: %s", k, r.stdout)
		}
	}
	var rep struct{ Summary map[string]any }
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"pages", "links", "errors", "skipped", "left_queued"} {
		if _, ok := rep.Summary[k]; !ok {
			t.Errorf("report summary lacks %q", k)
		}
	}

	rec := httptest.NewRecorder()
	newService(&environment{}).metrics(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{"linksrus_pages_crawled_total ", "linksrus_errors_total ", "linksrus_pages_skipped_total ", "URLs queued"} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("metrics lack %q:\n%s", want, rec.Body)
		}
	}

	readme := readFile(t, "../../README.md")
	for _, want := range []string{
		"linksrus stats [flags]          URLs known, crawled, not fetched, links, pages indexed",
		"- `/status` URLs known, crawled, not fetched, pages indexed",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q", want)
		}
	}

	changes := readFile(t, "../../CHANGES.md")
	for _, rn := range []struct{ where, old, new string }{
		{"`stats --json`", "links", "urls"},
		{"`stats --json`", "edges", "links"},
		{"`stats --json`", "pending", "not_fetched"},
		{"`/api/status`, `crawl-status.json`", "links", "urls"},
		{"`/api/status`, `crawl-status.json`", "pending", "not_fetched"},
		{"`searchweb.Status`", "Links", "URLs"},
		{"`searchweb.Status`", "Pending", "NotFetched"},
		{"`/metrics`", "linksrus_fetch_errors_total", "linksrus_errors_total"},
	} {
		row := "| " + rn.where + " | `" + rn.old + "` | `" + rn.new + "` |"
		if !slices.ContainsFunc(strings.Split(changes, "\n"), func(l string) bool { return strings.HasPrefix(l, row) }) {
			t.Errorf("CHANGES.md lacks the rename row %q", row)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

package main

import (
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// crawledData crawls a site of n pages into a new data directory.
func crawledData(t *testing.T, n int) (*testSite, string) {
	t.Helper()
	site := newTestSite(t, n, 0)
	data := t.TempDir()
	if r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", site.URL+"/"); r.code != 0 {
		t.Fatalf("crawl: exit %d\n%s", r.code, r.stderr)
	}
	return site, data
}

// TestSearchWithoutCrawlData: search reads the index alone, so an empty
// data directory is told about the index (not the graph it does not
// read), and an index named with --index needs no graph at all.
func TestSearchWithoutCrawlData(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "none")
	r := linksrus(t, nil, "search", "--data", empty, "gophers")
	if r.code != exitFailure || !strings.Contains(r.stderr, "no index in "+empty) ||
		!strings.Contains(r.stderr, "--index") || strings.Contains(r.stderr, "--graph") {
		t.Errorf("search in an empty directory: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(empty); err == nil {
		t.Error("search created the data directory")
	}

	site, data := crawledData(t, 10)
	r = linksrus(t, nil, "search", "--data", empty, "--index", "sqlite://"+filepath.Join(data, "index.db"), "zanzibar")
	if r.code != 0 || !strings.Contains(r.stdout, site.URL+"/page/7") {
		t.Errorf("search --index elsewhere: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestSearchOffsetInWords: a bad --offset gets a sentence, as --limit does.
func TestSearchOffsetInWords(t *testing.T) {
	for _, v := range []string{"-1", "-100"} {
		r := linksrus(t, nil, "search", "--data", t.TempDir(), "--offset", v, "gophers")
		if r.code != exitUsage || !strings.Contains(r.stderr, "--offset must be a whole number") || strings.Contains(r.stderr, "parse error") {
			t.Errorf("--offset %s: exit %d\n%s", v, r.code, r.stderr)
		}
	}
}

// TestSearchCommandMessages: the search command tells what it searched
// and why it could not, in the words the search page uses.
func TestSearchCommandMessages(t *testing.T) {
	site, data := crawledData(t, 10)
	for _, tc := range []struct {
		query []string
		code  int
		want  string // in stdout and stderr
		not   string
	}{
		{[]string{"caf\xe9", "\xff\xfe"}, exitUsage, "not UTF-8", "-word and site:host"},
		{[]string{"!!!", "***"}, exitUsage, "only letters and digits", "-word and site:host"},
		{[]string{"--", "-gophers", "site:127.0.0.1"}, exitUsage, "-word and site:host only narrow a search", "UTF-8"},
		{[]string{`"write ahead log"`}, 0, `No pages match "write ahead log".`, `\"`},
		{[]string{`nothing`}, 0, `No pages match “nothing”.`, `\"`},
		{[]string{"gophers", "site:127.0.0.1"}, 0, `No pages match “gophers site:127.0.0.1”.`, "Results"},
		{[]string{"gophers", "site:" + strings.TrimPrefix(site.URL, "http://")}, 0, "Results 1-10 of 10", "No pages"},
	} {
		r := linksrus(t, nil, append([]string{"search", "--data", data}, tc.query...)...)
		out := r.stdout + r.stderr
		if r.code != tc.code || !strings.Contains(out, tc.want) || strings.Contains(out, tc.not) {
			t.Errorf("search %q: exit %d, want %d with %q and not %q:\n%s", tc.query, r.code, tc.code, tc.want, tc.not, out)
		}
	}

	// A query cut at 4 KB is echoed as searched, not whole.
	long := strings.Repeat("gophers ", 12000)
	r := linksrus(t, nil, "search", "--data", data, "--json", long)
	if r.code != 0 || len(r.stdout) > 16<<10 || !strings.Contains(r.stdout, `"query": "gophers"`) || !strings.Contains(r.stdout, `"query_cut": true`) {
		t.Errorf("search --json of a %d KB query: exit %d, %d bytes:\n%.1000s", len(long)>>10, r.code, len(r.stdout), r.stdout)
	}
}

// TestServeBaseURL: the OpenSearch description names --base-url, or else
// the address serve listens on, never the Host header a request brings.
func TestServeBaseURL(t *testing.T) {
	_, data := crawledData(t, 3)
	template := func(base string) string {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, base+"opensearch.xml", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "evil.example"
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var d struct {
			URLs []struct {
				Template string `xml:"template,attr"`
			} `xml:"Url"`
		}
		if err := xml.Unmarshal(body, &d); err != nil || len(d.URLs) == 0 {
			t.Fatalf("opensearch.xml: status %d, %v\n%s", resp.StatusCode, err, body)
		}
		return d.URLs[0].Template
	}
	base := startServe(t, nil, "--data", data, "--base-url", "https://search.example.com/")
	if got, want := template(base), "https://search.example.com/search?q={searchTerms}"; got != want {
		t.Errorf("with --base-url: template %q, want %q", got, want)
	}
	base = startServe(t, nil, "--data", data)
	if got, want := template(base), base+"search?q={searchTerms}"; got != want {
		t.Errorf("without --base-url: template %q, want %q", got, want)
	}
	if u, err := url.Parse(base); err != nil || u.Port() == "0" {
		t.Errorf("serving line names %s", base)
	}

	for _, bad := range []string{"search.example.com", "ftp://search.example.com", "https://", "https://search.example.com/x?y=1", "https://user@search.example.com"} {
		r := linksrus(t, nil, "serve", "--data", data, "--listen", "127.0.0.1:0", "--base-url", bad)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--base-url") {
			t.Errorf("--base-url %q: exit %d\n%s", bad, r.code, r.stderr)
		}
	}
	if r := linksrus(t, nil, "serve", "--help"); r.code != 0 || !strings.Contains(r.stderr, "-base-url") {
		t.Errorf("serve --help does not document --base-url:\n%s", r.stderr)
	}
}

package main

import (
	"crypto/sha256"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linksrus/linksrus/searchweb"
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

// notesSite serves release notes, each posted on four days (near-duplicate
// pages), and short pages of their own, all about the crawler.
func notesSite(t *testing.T, articles, days, short int) *httptest.Server {
	t.Helper()
	page := func(w http.ResponseWriter, title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><p>%s</p></body></html>", title, body)
	}
	animals := []string{"heron", "badger", "otter", "lynx", "marten", "stoat", "vole", "wren", "newt", "moth", "carp", "kite"}
	places := []string{"river", "barn", "quarry", "orchard", "harbour", "meadow", "chapel", "mill", "forge", "dune", "cellar", "bridge"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var k, d, j int
		switch {
		case r.URL.Path == "/":
			var links strings.Builder
			for k := range articles {
				for d := range days {
					fmt.Fprintf(&links, `<a href="/notes/%d/%d">n</a> `, k, d)
				}
			}
			for j := range short {
				fmt.Fprintf(&links, `<a href="/other/%d">o</a> `, j)
			}
			page(w, "Home", links.String())
		case fmtScan(r.URL.Path, "/notes/%d/%d", &k, &d) && k < articles && d < days:
			var text strings.Builder
			fmt.Fprintf(&text, "Posted on day %d. ", d)
			for n := range 300 {
				fmt.Fprintf(&text, "Change %d of release %d makes the crawler better in way %d. ", n, k, n*(k+3))
			}
			page(w, fmt.Sprintf("Release %d", k), text.String())
		case fmtScan(r.URL.Path, "/other/%d", &j) && j < short:
			page(w, fmt.Sprintf("Sighting %d", j), fmt.Sprintf("The crawler met a %s by the %s and counted %d of them.", animals[j%12], places[(j*5)%12], j+2))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func fmtScan(s, format string, args ...any) bool {
	n, err := fmt.Sscanf(s, format, args...)
	return err == nil && n == len(args)
}

// shownPage is a page of results as a user sees it: each result's URL,
// then those of the near-duplicates under it; how many results there are,
// and the offsets of the page and of the next one (0 on the last page).
type shownPage struct {
	Results             [][]string
	Total, Offset, Next uint64
	// Ranks are the ranks of Results, flattened (the command's only).
	Ranks []uint64
}

// commandPage runs `linksrus search` at offset, reading its JSON and the
// "Next: --offset N" of its text.
func commandPage(t *testing.T, data, query string, offset uint64, limit int) shownPage {
	t.Helper()
	args := []string{"search", "--data", data, "--limit", fmt.Sprint(limit), "--offset", fmt.Sprint(offset)}
	r := linksrus(t, nil, append(args, "--json", query)...)
	var out struct {
		Total, Offset uint64
		Next          uint64 `json:"next_offset"`
		Results       []struct {
			Rank           uint64
			URL            string
			NearDuplicates []struct {
				Rank uint64
				URL  string
			} `json:"near_duplicates"`
		}
	}
	if r.code != 0 {
		t.Fatalf("search --offset %d: exit %d\n%s", offset, r.code, r.stderr)
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("search --json: %v\n%s", err, r.stdout)
	}
	p := shownPage{Total: out.Total, Offset: out.Offset}
	for _, res := range out.Results {
		shown := []string{res.URL}
		p.Ranks = append(p.Ranks, res.Rank)
		for _, n := range res.NearDuplicates {
			shown = append(shown, n.URL)
			p.Ranks = append(p.Ranks, n.Rank)
		}
		p.Results = append(p.Results, shown)
	}
	r = linksrus(t, nil, append(args, query)...)
	if m := regexp.MustCompile(`(?m)^Next: --offset (\d+)$`).FindStringSubmatch(r.stdout); m != nil {
		fmt.Sscan(m[1], &p.Next)
	}
	if out.Next != p.Next {
		t.Errorf("search --offset %d: next_offset %d, but the text says Next: --offset %d", offset, out.Next, p.Next)
	}
	return p
}

// webPage reads a search page (base+path) and returns the page and the
// link to the next one ("" on the last).
func webPage(t *testing.T, base, path string) (shownPage, string) {
	t.Helper()
	resp, err := http.Get(base + strings.TrimPrefix(path, "/"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	body := string(raw)
	m := regexp.MustCompile(`Results (\d+)–(\d+) of (\d+)`).FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("%s: status %d\n%s", path, resp.StatusCode, body)
	}
	var p shownPage
	var first, last uint64
	fmt.Sscan(m[1], &first)
	fmt.Sscan(m[2], &last)
	fmt.Sscan(m[3], &p.Total)
	p.Offset = first - 1
	count := uint64(0)
	for _, li := range regexp.MustCompile(`(?s)<li class="result">(.*?)</li>`).FindAllStringSubmatch(body, -1) {
		u := html.UnescapeString(regexp.MustCompile(`<cite>([^<]*)</cite>`).FindStringSubmatch(li[1])[1])
		shown := []string{u}
		if n := regexp.MustCompile(`Nearly the same: (.*?)</p>`).FindStringSubmatch(li[1]); n != nil {
			for _, a := range regexp.MustCompile(`<a href="([^"]*)">`).FindAllStringSubmatch(n[1], -1) {
				shown = append(shown, html.UnescapeString(a[1]))
			}
		}
		p.Results = append(p.Results, shown)
		count += uint64(len(shown))
	}
	if count != last-first+1 {
		t.Errorf("%s: results %d–%d, but %d shown", path, first, last, count)
	}
	next := ""
	if n := regexp.MustCompile(`<a rel="next" href="([^"]*)">`).FindStringSubmatch(body); n != nil {
		next = html.UnescapeString(n[1])
		p.Next = last
	}
	return p, next
}

// TestSearchCommandAndPageAgree: `linksrus search` and the search page
// (and its API) give the same results for the same query, offset and
// limit, near-duplicates folded the same way, and going from page to page
// in either shows every result exactly once; the page's page n is where
// the command's Next reaches after n-1 pages.
func TestSearchCommandAndPageAgree(t *testing.T) {
	site := notesSite(t, 4, 4, 8)
	data := t.TempDir()
	if r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", site.URL+"/"); r.code != 0 {
		t.Fatalf("crawl: exit %d\n%s", r.code, r.stderr)
	}
	base := startServe(t, nil, "--data", data)
	const total = 4*4 + 8

	// The command's pages, from the first on, each where the one before
	// stopped reading: every result once, every page but the last full.
	for _, limit := range []int{1, 3, searchweb.DefaultPageSize} {
		var pages []shownPage
		ranks := map[uint64]int{}
		folded := 0
		for offset := uint64(0); ; {
			p := commandPage(t, data, "crawler", offset, limit)
			if p.Total != total || p.Offset != offset {
				t.Fatalf("--limit %d --offset %d: total %d, offset %d", limit, offset, p.Total, p.Offset)
			}
			for _, r := range p.Ranks {
				ranks[r]++
			}
			for _, r := range p.Results {
				folded += len(r) - 1
			}
			pages = append(pages, p)
			if p.Next == 0 {
				break
			}
			if len(p.Results) != limit || p.Next != offset+uint64(len(p.Ranks)) {
				t.Errorf("--limit %d --offset %d: %d results shown, %d read, next at %d", limit, offset, len(p.Results), len(p.Ranks), p.Next)
			}
			if len(pages) > total {
				t.Fatalf("--limit %d: more pages than results", limit)
			}
			offset = p.Next
		}
		for r := uint64(1); r <= total; r++ {
			if ranks[r] != 1 {
				t.Errorf("--limit %d: result %d shown %d times, want once", limit, r, ranks[r])
			}
		}
		// Each text is on four pages: a page of ten holds two of one.
		if limit == searchweb.DefaultPageSize && folded == 0 {
			t.Fatalf("--limit %d: nothing folded, so this shows nothing", limit)
		}

		// The API, asked for the command's offsets and others.
		for _, offset := range []uint64{pages[len(pages)-1].Offset, 1, 5, total - 1} {
			want := commandPage(t, data, "crawler", offset, limit)
			var a struct {
				Total, Offset uint64
				Next          uint64 `json:"next_offset"`
				Results       []struct {
					URL            string
					NearDuplicates []struct{ URL string } `json:"near_duplicates"`
				}
			}
			apiGet(t, base, fmt.Sprintf("api/search?q=crawler&offset=%d&limit=%d", offset, limit), &a)
			got := shownPage{Total: a.Total, Offset: a.Offset, Next: a.Next}
			for _, r := range a.Results {
				shown := []string{r.URL}
				for _, n := range r.NearDuplicates {
					shown = append(shown, n.URL)
				}
				got.Results = append(got.Results, shown)
			}
			want.Ranks = nil
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("offset %d, limit %d: the API answers %v, the command %v", offset, limit, got, want)
			}
		}

		if limit != searchweb.DefaultPageSize {
			continue
		}
		// The page's pages, through its Next links, are the command's.
		next, n := "search?q=crawler", 0
		for ; next != ""; n++ {
			var got shownPage
			got, next = webPage(t, base, next)
			if n >= len(pages) {
				t.Fatalf("the page has more pages than the command's %d", len(pages))
			}
			want := pages[n]
			want.Ranks = nil
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("page %d: the page shows %v, the command %v", n+1, got, want)
			}
		}
		if n != len(pages) {
			t.Errorf("the page has %d pages, the command %d", n, len(pages))
		}
	}
}

// TestSearchSnippetFromContent: on a site whose pages open with the same
// navigation block (Prev, Up, Home, Next and the neighbours' titles, in a
// div the site names navheader, as the PostgreSQL manual does), a search
// for a word of that navigation finds the page about it first, and its
// snippet starts in its content, not in its navigation (#28 item 5).
func TestSearchSnippetFromContent(t *testing.T) {
	pages := []struct{ path, title, text string }{
		{"/sql-update.html", "UPDATE", "UPDATE changes the values of the specified columns in all rows that satisfy the condition."},
		{"/sql-vacuum.html", "VACUUM", "VACUUM reclaims storage occupied by dead tuples. In normal operation, tuples that are deleted are not removed."},
		{"/sql-values.html", "VALUES", "VALUES computes a row value or set of row values specified by value expressions."},
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i, p := range pages {
			if r.URL.Path != p.path && !(r.URL.Path == "/" && i == 0) {
				continue
			}
			prev, next := pages[(i+len(pages)-1)%len(pages)], pages[(i+1)%len(pages)]
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<html><head><title>%s</title></head><body>`+
				`<div class="navheader"><table><tr><th colspan="3">%s</th></tr><tr>`+
				`<td><a href="%s">Prev</a> %s</td><td><a href="/">Up</a> SQL Commands</td><td><a href="%s">Next</a> %s</td></tr></table></div>`+
				`<div class="refentry"><h1>%s</h1><p>%s</p></div>`+
				`<div class="navfooter"><a href="%s">Prev</a> <a href="/">Home</a> <a href="%s">Next</a></div></body></html>`,
				p.title, p.title, prev.path, prev.title, next.path, next.title, p.title, p.text, prev.path, next.path)
			return
		}
		http.NotFound(w, r)
	}))
	defer site.Close()
	data := t.TempDir()
	if r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", site.URL+"/"); r.code != 0 {
		t.Fatalf("crawl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := linksrus(t, nil, "search", "--data", data, "--json", "vacuum")
	var out struct {
		Results []struct {
			URL     string `json:"url"`
			Snippet string `json:"snippet"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("search --json: %v\n%s", err, r.stdout)
	}
	if len(out.Results) != 1 || out.Results[0].URL != site.URL+"/sql-vacuum.html" {
		t.Fatalf("results %+v, want sql-vacuum.html alone (the others name VACUUM in their navigation only)", out.Results)
	}
	if s := out.Results[0].Snippet; !strings.HasPrefix(s, "VACUUM VACUUM reclaims storage") || strings.Contains(s, "Prev") {
		t.Errorf("snippet %q, want it to start in the page's content", s)
	}
}

// TestSearchLeavesRepeatedTemplateOut: a site's template that nothing
// marks as navigation (a table of links, a footer in a plain <div>) is
// left out of its pages' text once the crawl has seen it on most of them:
// only the first pages crawled, before it was seen repeated, match its
// words, and every page keeps its own (#28 item 5, by repetition).
func TestSearchLeavesRepeatedTemplateOut(t *testing.T) {
	const pages = 12
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := 0
		if r.URL.Path != "/" {
			if _, err := fmt.Sscanf(r.URL.Path, "/page%d.html", &n); err != nil || n < 1 || n >= pages {
				http.NotFound(w, r)
				return
			}
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><title>Page %d</title></head><body>`+
			`<table><tr><td><a href="/">Home</a></td><td><a href="/page%d.html">Products</a></td><td><a href="/page%d.html">Contact</a></td></tr></table>`+
			`<p>Widget model %d turns gears for the %s.</p>`, n, (n+1)%pages, (n+2)%pages, n, strings.Repeat("mill ", n+1))
		if n == 0 {
			for i := 1; i < pages; i++ {
				fmt.Fprintf(w, `<p>See <a href="/page%d.html">model %d</a>.</p>`, i, i)
			}
		}
		fmt.Fprint(w, `<div>Copyright 2026 Acme Widgets Incorporated. All rights reserved.</div></body></html>`)
	}))
	defer site.Close()
	data := t.TempDir()
	if r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", site.URL+"/"); r.code != 0 {
		t.Fatalf("crawl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	type results struct {
		Total   uint64 `json:"total"`
		Results []struct {
			URL     string `json:"url"`
			Snippet string `json:"snippet"`
		} `json:"results"`
	}
	search := func(q string) results {
		t.Helper()
		r := linksrus(t, nil, "search", "--data", data, "--json", q)
		var out results
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("search --json %q: %v\n%s%s", q, err, r.stdout, r.stderr)
		}
		return out
	}
	// The pages before the template was seen on 5 (crawler's
	// repeatPages) keep it: 4 at most.
	for _, q := range []string{"copyright acme", "contact"} {
		if out := search(q); out.Total == 0 || out.Total > 4 {
			t.Errorf("%q matches %d of %d pages, want the first few crawled only", q, out.Total, pages)
		}
	}
	if out := search("widget gears"); out.Total != pages {
		t.Errorf("widget gears matches %d pages, want all %d (their own text is kept)", out.Total, pages)
	}
	out := search("mill")
	if out.Total != pages {
		t.Fatalf("mill matches %d pages, want %d", out.Total, pages)
	}
	withTemplate := 0
	for _, res := range out.Results {
		if strings.Contains(res.Snippet, "Copyright") || strings.Contains(res.Snippet, "Contact") {
			withTemplate++
		}
	}
	if withTemplate > 4 {
		t.Errorf("%d snippets show the template, want 4 at most", withTemplate)
	}
}

// TestSearchWordForms: a crawled page is found by other forms of its
// words, stemmed in the language it declares: "vacuuming" finds the pages
// saying VACUUM and vacuumed, not the one saying vacuums in a page that
// declares German, for which no stemmer exists (#28 item 1).
func TestSearchWordForms(t *testing.T) {
	pages := map[string]string{
		"/":                `<html><head><title>Maintenance</title></head><body><a href="/sql-vacuum.html">a</a> <a href="/notes.html">b</a> <a href="/de.html">c</a> <a href="/fr.html">d</a></body></html>`,
		"/sql-vacuum.html": `<html><head><title>VACUUM</title></head><body><p>VACUUM reclaims storage.</p></body></html>`,
		"/notes.html":      `<html lang="en-GB"><head><title>Notes</title></head><body><p>The tables were vacuumed last night.</p></body></html>`,
		"/de.html":         `<html lang="de"><head><title>Notizen</title></head><body><p>Die vacuums laufen.</p></body></html>`,
		"/fr.html":         `<html lang="fr"><head><title>Notes</title></head><body><p>Les tables sont nettoyées.</p></body></html>`,
	}
	data, siteURL := crawledSite(t, pages)
	found := func(args ...string) []string {
		t.Helper()
		r := linksrus(t, nil, append([]string{"search", "--data", data, "--json"}, args...)...)
		var out struct {
			Results []struct {
				URL string `json:"url"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("search --json %v: %v\n%s%s", args, err, r.stdout, r.stderr)
		}
		var got []string
		for _, res := range out.Results {
			got = append(got, strings.TrimPrefix(res.URL, siteURL))
		}
		slices.Sort(got)
		return got
	}
	if got, want := found("vacuuming"), []string{"/notes.html", "/sql-vacuum.html"}; !slices.Equal(got, want) {
		t.Errorf("vacuuming finds %v, want %v", got, want)
	}
	// A query in French finds the French forms (nettoyer, nettoyées);
	// read as English, it does not.
	if got, want := found("--lang", "fr", "nettoyer"), []string{"/fr.html"}; !slices.Equal(got, want) {
		t.Errorf("--lang fr nettoyer finds %v, want %v", got, want)
	}
	if got := found("nettoyer"); len(got) != 0 {
		t.Errorf("nettoyer as English finds %v, want nothing", got)
	}
	if r := linksrus(t, nil, "search", "--data", data, "--lang", "fr_FR", "nettoyer"); r.code != exitUsage || !strings.Contains(r.stderr, "language tag") {
		t.Errorf("--lang fr_FR: exit %d, %s", r.code, r.stderr)
	}
}

// TestSearchAnchorText: the words of the links pointing at a page rank it
// (a page several pages link to as "psql" comes before one that only says
// psql more often), search --json says in which fields the words were
// found, and the anchor text survives a recrawl in which the linking
// pages answer 304 Not Modified (their links are not read again) while
// the page they link to changes.
func TestSearchAnchorText(t *testing.T) {
	var (
		mu          sync.Mutex
		refVersion  = "1"
		notModified int
	)
	pages := map[string]string{
		"/":           `<html><head><title>Home</title></head><body><a href="/ref.html">Reference</a> <a href="/notes.html">Notes</a> <a href="/s1.html">1</a> <a href="/s2.html">2</a> <a href="/s3.html">3</a></body></html>`,
		"/notes.html": `<html><head><title>Notes</title></head><body><p>psql psql psql: notes on psql, psql and psql again.</p></body></html>`,
	}
	for n := 1; n <= 3; n++ {
		var others strings.Builder
		for k := range 6 {
			fmt.Fprintf(&others, `<a href="/other%d.html">other page %d</a> `, k, k)
		}
		pages[fmt.Sprintf("/s%d.html", n)] = fmt.Sprintf(`<html><head><title>Page %d</title></head><body><p>See <a href="/ref.html">psql</a>. %s</p></body></html>`, n, others.String())
	}
	for k := range 6 {
		pages[fmt.Sprintf("/other%d.html", k)] = fmt.Sprintf(`<html><head><title>Other %d</title></head><body><p>Nothing here.</p></body></html>`, k)
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		body, ok := pages[r.URL.Path]
		if r.URL.Path == "/ref.html" {
			body, ok = `<html><head><title>Reference</title></head><body><p>The interactive terminal, psql, version `+refVersion+`.</p></body></html>`, true
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		etag := fmt.Sprintf(`"%x"`, sha256.Sum256([]byte(body)))
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			if strings.HasPrefix(r.URL.Path, "/s") {
				notModified++
			}
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, body)
	}))
	defer site.Close()
	data := t.TempDir()
	crawl := func(args ...string) {
		t.Helper()
		r := linksrus(t, nil, append([]string{"crawl", "--data", data, "--allow-net", "127.0.0.0/8"}, append(args, site.URL+"/")...)...)
		if r.code != 0 {
			t.Fatalf("crawl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	}
	type result struct {
		URL    string   `json:"url"`
		Fields []string `json:"fields"`
	}
	search := func(q string) []result {
		t.Helper()
		r := linksrus(t, nil, "search", "--data", data, "--json", q)
		var out struct {
			Results []result `json:"results"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("search --json %s: %v\n%s%s", q, err, r.stdout, r.stderr)
		}
		for n := range out.Results {
			out.Results[n].URL = strings.TrimPrefix(out.Results[n].URL, site.URL)
		}
		return out.Results
	}
	check := func(when string) {
		t.Helper()
		got := search("psql")
		want := []result{
			{URL: "/ref.html", Fields: []string{"body", "anchor"}},
			{URL: "/notes.html", Fields: []string{"body"}},
		}
		if len(got) < 2 || !reflect.DeepEqual(got[:2], want) {
			t.Fatalf("%s: psql gives %+v, want %+v first", when, got, want)
		}
	}
	crawl()
	check("after the crawl")

	mu.Lock()
	refVersion = "2"
	mu.Unlock()
	time.Sleep(1100 * time.Millisecond)
	crawl("--recrawl-after", "1s")
	mu.Lock()
	n := notModified
	mu.Unlock()
	if n != 3 {
		t.Fatalf("%d of the linking pages answered 304 Not Modified, want 3", n)
	}
	if got := search("version 2"); len(got) != 1 || got[0].URL != "/ref.html" {
		t.Fatalf("the changed page was not indexed again: %+v", got)
	}
	check("after a recrawl in which the linking pages were not modified")
}

// TestSearchHeadings: a page's headings are a field of the embedded
// index: the page with a section "Replication slots" comes before the one
// that mentions replication twice in its text, and search --json says the
// word was found in its headings; a heading in the site's navigation is
// not one.
func TestSearchHeadings(t *testing.T) {
	filler := strings.Repeat("Words about databases and how they keep data. ", 4)
	pages := map[string]string{
		"/":           `<html><head><title>Home</title></head><body><nav><h2>Replication menu</h2><a href="/slots.html">Slots</a> <a href="/log.html">Log</a></nav><p>Welcome.</p></body></html>`,
		"/slots.html": `<html><head><title>Slots</title></head><body><h2>Replication slots</h2><p>They keep the log. ` + filler + `</p></body></html>`,
		"/log.html":   `<html><head><title>Log</title></head><body><p>The log is sent by replication; replication can lag. ` + filler + `</p></body></html>`,
	}
	data, siteURL := crawledSite(t, pages)
	r := linksrus(t, nil, "search", "--data", data, "--json", "replication")
	var out struct {
		Results []struct {
			URL    string   `json:"url"`
			Fields []string `json:"fields"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("search --json: %v\n%s%s", err, r.stdout, r.stderr)
	}
	var got []string
	for _, res := range out.Results {
		got = append(got, strings.TrimPrefix(res.URL, siteURL)+" "+strings.Join(res.Fields, ","))
	}
	want := []string{"/slots.html headings,body", "/log.html body"} // the home page's only heading is its menu's
	if !slices.Equal(got, want) {
		t.Errorf("replication gives %q, want %q", got, want)
	}
}

// crawledSite serves pages (HTML by path) on loopback, crawls them into a
// new data directory from "/", and returns the directory and the site's
// URL, which stays served until the test ends.
func crawledSite(t *testing.T, pages map[string]string) (data, siteURL string) {
	t.Helper()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(site.Close)
	data = t.TempDir()
	if r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", site.URL+"/"); r.code != 0 {
		t.Fatalf("crawl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	return data, site.URL
}

package searchweb_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/searchweb"
	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/memory"
)

// newTestServer indexes docs in a memory index and serves them.
func newTestServer(t *testing.T, opts searchweb.Options, docs ...*textindex.Document) *httptest.Server {
	t.Helper()
	idx := memory.New()
	for _, d := range docs {
		if d.LinkID == uuid.Nil {
			d.LinkID = uuid.New()
		}
		if err := idx.Index(d); err != nil {
			t.Fatal(err)
		}
	}
	if opts.Index == nil {
		opts.Index = idx
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h, err := searchweb.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, srv *httptest.Server, path string) (int, http.Header, string) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(body)
}

func gophers(n int) []*textindex.Document {
	var docs []*textindex.Document
	for i := range n {
		host := "a.example"
		if i%3 == 0 {
			host = "b.example"
		}
		docs = append(docs, &textindex.Document{
			URL:     fmt.Sprintf("http://%s/page%d", host, i),
			Title:   fmt.Sprintf("Gopher page %d", i),
			Content: fmt.Sprintf("Page %d is about the gopher, a burrowing rodent. It digs.", i),
		})
	}
	return docs
}

func TestSearchPage(t *testing.T) {
	srv := newTestServer(t, searchweb.Options{PageSize: 4}, gophers(10)...)

	code, h, body := get(t, srv, "/search?q=gopher+digs")
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type %q", ct)
	}
	for _, want := range []string{
		"Results 1–4 of 10",
		"<mark>gopher</mark>",
		"<mark>digs</mark>",
		`<label for="q"`,
		`value="gopher digs"`,
		`aria-current="page"`,
		`rel="next"`,
		// Hosts facet: 7 results on a.example, 4 on b.example... of 10.
		`href="/search?q=gopher&#43;digs&#43;site%3Aa.example">a.example</a> <span class="n">6</span>`,
		`>b.example</a> <span class="n">4</span>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(body, `class="result"`); n != 4 {
		t.Errorf("%d results on the page, want 4", n)
	}

	// Page 3 holds results 9-10; the facet link restricts the query.
	_, _, body = get(t, srv, "/search?q=gopher&p=3")
	if !strings.Contains(body, "Results 9–10 of 10") || !strings.Contains(body, `rel="prev"`) || strings.Contains(body, `rel="next"`) {
		t.Errorf("page 3 is wrong:\n%s", body)
	}
	_, _, body = get(t, srv, "/search?q="+url.QueryEscape("gopher site:b.example"))
	if !strings.Contains(body, "Results 1–4 of 4") || strings.Contains(body, "a.example/") {
		t.Errorf("site:b.example is wrong:\n%s", body)
	}
}

// TestSearchPageEscapes checks that neither a page's title nor the query
// reaches the HTML unescaped.
func TestSearchPageEscapes(t *testing.T) {
	srv := newTestServer(t, searchweb.Options{}, &textindex.Document{
		URL:     "http://evil.example/x?a=1&b=<2>",
		Title:   `<script>alert("title")</script> gopher`,
		Content: `gopher <script>alert("content")</script> <img src=x onerror=alert(1)>`,
	})
	for _, q := range []string{"gopher", `gopher "><script>alert(1)</script>`, "<script>"} {
		_, _, body := get(t, srv, "/search?q="+url.QueryEscape(q))
		if strings.Contains(body, "<script>") || strings.Contains(body, "<img") {
			t.Errorf("query %q: markup from the page or query reached the HTML:\n%s", q, body)
		}
	}
	_, _, body := get(t, srv, "/search?q=gopher")
	if !strings.Contains(body, "&lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt;") {
		t.Errorf("the title is not shown escaped:\n%s", body)
	}
}

// TestSearchPageBadInput sends what a search box receives from the wild:
// every answer is quick, in words, and never a server error.
func TestSearchPageBadInput(t *testing.T) {
	srv := newTestServer(t, searchweb.Options{}, gophers(3)...)
	for _, tc := range []struct {
		path string
		code int
		want string
	}{
		{"/search?q=", http.StatusOK, "Type a word to search for."},
		{"/search?q=" + url.QueryEscape("\x00\x01\x1b[\x7f\u0085"), http.StatusOK, "no word or phrase"},
		{"/search?q=" + url.QueryEscape(`NEAR(gopher`), http.StatusOK, "No pages match"},
		{"/search?q=" + url.QueryEscape(`gopher*`), http.StatusOK, "Results 1–3 of 3"},
		{"/search?q=" + url.QueryEscape(`"gopher`), http.StatusOK, "Results 1–3 of 3"},
		{"/search?q=" + url.QueryEscape(`AND OR NOT`), http.StatusOK, "No pages match"},
		{"/search?q=-gopher", http.StatusOK, "no word or phrase"},
		{"/search?q=" + url.QueryEscape(strings.Repeat("gopher ", 15000)), http.StatusOK, "Results 1–3 of 3"},
		{"/search?q=" + url.QueryEscape(strings.Repeat("w", 100<<10)), http.StatusOK, "The query was cut to its first 4 KB and 32 words, which left no word"},
		{"/search?q=gopher&p=99", http.StatusOK, "No results on page 99"},
		{"/search?q=gopher&p=0", http.StatusBadRequest, "no such page"},
		{"/search?q=gopher&p=abc", http.StatusBadRequest, "no such page"},
		{"/search?q=gopher&p=99999999999999999999", http.StatusBadRequest, "no such page"},
		// Page n reads the pages before it: deep pages are refused, so
		// that no request reads a whole index.
		{"/search?q=gopher&p=101", http.StatusBadRequest, "Pages of results go up to 100"},
		{"/nowhere", http.StatusNotFound, "There is no page here."},
	} {
		start := time.Now()
		code, _, body := get(t, srv, tc.path)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%.60s: status %d, want %d with %q; body:\n%.600s", tc.path, code, tc.code, tc.want, body)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%.60s took %v", tc.path, d)
		}
	}
	resp, err := srv.Client().Post(srv.URL+"/search", "text/plain", strings.NewReader("q=x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /search: status %d, want 405", resp.StatusCode)
	}
}

type apiAnswer struct {
	Query   string `json:"query"`
	Total   uint64 `json:"total"`
	Offset  uint64 `json:"offset"`
	Results []struct {
		Rank      uint64  `json:"rank"`
		URL       string  `json:"url"`
		Relevance float64 `json:"relevance"`
		PageRank  float64 `json:"pagerank"`
		Score     float64 `json:"score"`
		Snippet   []struct {
			Text  string `json:"text"`
			Match bool   `json:"match"`
		} `json:"snippet"`
	} `json:"results"`
	Hosts []struct {
		Host  string `json:"host"`
		Count int    `json:"count"`
	} `json:"hosts"`
	Problem string `json:"problem"`
}

func TestSearchAPI(t *testing.T) {
	srv := newTestServer(t, searchweb.Options{}, gophers(10)...)
	code, h, body := get(t, srv, "/api/search?q=gopher&offset=8&limit=5")
	if code != http.StatusOK || h.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, Content-Type %q", code, h.Get("Content-Type"))
	}
	var a apiAnswer
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatal(err)
	}
	if a.Total != 10 || a.Offset != 8 || len(a.Results) != 2 || a.Results[0].Rank != 9 {
		t.Fatalf("answer = %+v", a)
	}
	r := a.Results[0]
	if r.Relevance <= 0 || r.Score != r.Relevance+r.PageRank {
		t.Errorf("result scores = %+v: want relevance > 0 and score = relevance + pagerank", r)
	}
	marked := false
	for _, p := range r.Snippet {
		marked = marked || (p.Match && strings.EqualFold(p.Text, "gopher"))
	}
	if !marked {
		t.Errorf("snippet %+v marks no gopher", r.Snippet)
	}
	if len(a.Hosts) != 2 || a.Hosts[0].Host != "a.example" || a.Hosts[0].Count != 6 {
		t.Errorf("hosts = %+v", a.Hosts)
	}
	for _, bad := range []string{"limit=0", "limit=1000", "limit=x", "offset=-1", "offset=x"} {
		if code, _, _ := get(t, srv, "/api/search?q=gopher&"+bad); code != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", bad, code)
		}
	}
	_, _, body = get(t, srv, "/api/search?q=")
	if err := json.Unmarshal([]byte(body), &a); err != nil || a.Problem == "" || len(a.Results) != 0 {
		t.Errorf("empty query answered %s", body)
	}
}

// failingIndex fails every search, like a broken database connection.
type failingIndex struct{ err error }

func (f failingIndex) SearchContext(context.Context, textindex.Query) (textindex.Iterator, error) {
	return nil, f.err
}

// slowIndex answers only when the context ends.
type slowIndex struct{}

func (slowIndex) SearchContext(ctx context.Context, _ textindex.Query) (textindex.Iterator, error) {
	<-ctx.Done()
	return nil, fmt.Errorf("slow index: %w", ctx.Err())
}

func TestSearchFailuresShowNoInternals(t *testing.T) {
	secret := errors.New(`pq: password authentication failed for user "admin" at 10.1.2.3`)
	srv := newTestServer(t, searchweb.Options{Index: failingIndex{secret}})
	code, _, body := get(t, srv, "/search?q=gopher")
	if code != http.StatusInternalServerError || !strings.Contains(body, "The search failed") || strings.Contains(body, "password") {
		t.Errorf("status %d, body:\n%s", code, body)
	}
	_, _, body = get(t, srv, "/api/search?q=gopher")
	if strings.Contains(body, "password") {
		t.Errorf("API shows the error: %s", body)
	}

	srv = newTestServer(t, searchweb.Options{Index: slowIndex{}, Timeout: 50 * time.Millisecond})
	code, _, body = get(t, srv, "/search?q=gopher")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "took longer than 50ms") {
		t.Errorf("status %d, body:\n%s", code, body)
	}
}

func TestStatus(t *testing.T) {
	last := time.Date(2026, 11, 23, 10, 30, 0, 0, time.UTC)
	srv := newTestServer(t, searchweb.Options{Status: func(context.Context) (searchweb.Status, error) {
		return searchweb.Status{Known: true, URLs: 120, Crawled: 100, NotFetched: 20, Indexed: 98, LastCrawl: last, Source: "the link graph"}, nil
	}})
	code, _, body := get(t, srv, "/status")
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	for _, want := range []string{`<dd id="urls">120</dd>`, `<dd id="crawled">100</dd>`, `<dd id="not-fetched">20 `, `<dd id="indexed">98</dd>`, "2026-11-23 10:30 UTC", "From the link graph"} {
		if !strings.Contains(body, want) {
			t.Errorf("status page lacks %q:\n%s", want, body)
		}
	}
	_, _, body = get(t, srv, "/api/status")
	var st searchweb.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil || st.URLs != 120 || st.NotFetched != 20 || !st.LastCrawl.Equal(last) {
		t.Errorf("api/status = %s (%v)", body, err)
	}

	srv = newTestServer(t, searchweb.Options{Status: func(context.Context) (searchweb.Status, error) {
		return searchweb.Status{}, errors.New("secret internals")
	}})
	code, _, body = get(t, srv, "/status")
	if code != http.StatusServiceUnavailable || strings.Contains(body, "secret") {
		t.Errorf("failing status: %d\n%s", code, body)
	}
}

// TestOpenSearch: the description names Options.BaseURL, whatever Host
// a request brings; without a BaseURL there is none, and no page links one.
func TestOpenSearch(t *testing.T) {
	srv := newTestServer(t, searchweb.Options{Name: `Docs & "more"`, BaseURL: "https://search.example.com/"})
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/opensearch.xml", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "evil.example"
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/opensearchdescription+xml" {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var d struct {
		ShortName string `xml:"ShortName"`
		URLs      []struct {
			Type     string `xml:"type,attr"`
			Template string `xml:"template,attr"`
		} `xml:"Url"`
	}
	if err := xml.Unmarshal(body, &d); err != nil {
		t.Fatalf("not XML: %v\n%s", err, body)
	}
	if d.ShortName != `Docs & "more"` || len(d.URLs) != 3 ||
		d.URLs[0].Template != "https://search.example.com/search?q={searchTerms}" ||
		d.URLs[1].Template != "https://search.example.com/api/search?q={searchTerms}" ||
		d.URLs[2].Template != "https://search.example.com/opensearch.xml" {
		t.Errorf("description = %+v", d)
	}
	const link = `rel="search" type="application/opensearchdescription+xml" href="/opensearch.xml"`
	if _, _, page := get(t, srv, "/"); !strings.Contains(page, link) {
		t.Error("the home page does not link the description")
	}

	srv = newTestServer(t, searchweb.Options{})
	if code, _, _ := get(t, srv, "/opensearch.xml"); code != http.StatusNotFound {
		t.Errorf("without a BaseURL: /opensearch.xml status %d, want 404", code)
	}
	if _, _, page := get(t, srv, "/search?q=gopher"); strings.Contains(page, link) {
		t.Error("without a BaseURL, a page links a description")
	}

	for _, bad := range []string{"search.example.com", "ftp://search.example.com", "https://", "/search",
		"https://search.example.com/docs", "https://user@search.example.com", "https://search.example.com/?q=1", "https://search.example.com/#x"} {
		if _, err := searchweb.New(searchweb.Options{Index: memory.New(), BaseURL: bad}); err == nil {
			t.Errorf("New accepts BaseURL %q", bad)
		}
	}
}

// TestFacetLinkOfCutQuery: the facet link of a query cut by the bounds
// restricts what was searched (site:host added past the cut would be lost).
func TestFacetLinkOfCutQuery(t *testing.T) {
	srv := newTestServer(t, searchweb.Options{}, gophers(3)...)
	q := "gopher" + strings.Repeat(" gopher", 700)
	_, _, body := get(t, srv, "/search?q="+url.QueryEscape(q))
	m := regexp.MustCompile(`<a href="(/search\?q=[^"]*)">b\.example</a>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no facet link for b.example:\n%s", body)
	}
	_, _, body = get(t, srv, html.UnescapeString(m[1]))
	if !strings.Contains(body, "Results 1–1 of 1 for") {
		t.Errorf("the facet link for b.example does not restrict the cut query:\n%s", body)
	}
}

// TestDuplicatesAlsoAt: the same text under two URLs is one result, on
// the page and in the API, with the other URL (escaped) listed.
func TestDuplicatesAlsoAt(t *testing.T) {
	doc := func(u string) *textindex.Document {
		return &textindex.Document{URL: u, Title: "Twin", Content: "twin gopher text",
			ContentHash: textindex.ContentHash("Twin", "twin gopher text")}
	}
	srv := newTestServer(t, searchweb.Options{}, doc("http://a.example/t"), doc("http://a.example/t?x=<1>"))
	_, _, body := get(t, srv, "/search?q=twin")
	if !strings.Contains(body, "Results 1–1 of 1") ||
		!strings.Contains(body, `Also at <a href="http://a.example/t?x=%3c1%3e">http://a.example/t?x=&lt;1&gt;</a>`) {
		t.Errorf("search page:\n%s", body)
	}
	_, _, body = get(t, srv, "/api/search?q=twin")
	var a struct {
		Total   int
		Results []struct {
			URL    string
			AlsoAt []string `json:"also_at"`
		}
	}
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatal(err)
	}
	if a.Total != 1 || len(a.Results) != 1 || a.Results[0].URL != "http://a.example/t" ||
		len(a.Results[0].AlsoAt) != 1 || a.Results[0].AlsoAt[0] != "http://a.example/t?x=<1>" {
		t.Errorf("API: %s", body)
	}
}

// TestNearDuplicatesFolded: of two results with nearly the same long
// text, the page shows the first with the second under it; the count and
// paging still go by results as ranked.
func TestNearDuplicatesFolded(t *testing.T) {
	var release strings.Builder
	for n := range 300 {
		fmt.Fprintf(&release, "Change %d of this release makes the crawler better in way %d. ", n, n*7)
	}
	srv := newTestServer(t, searchweb.Options{},
		&textindex.Document{URL: "http://a.example/monday", Title: "Notes", Content: "Posted on Monday. " + release.String()},
		&textindex.Document{URL: "http://a.example/tuesday", Title: "Notes", Content: "Posted on Tuesday. " + release.String()},
		&textindex.Document{URL: "http://a.example/other", Title: "Other", Content: "A crawler of another kind entirely."})
	_, _, body := get(t, srv, "/search?q=crawler")
	if !strings.Contains(body, "Results 1–3 of 3") || strings.Count(body, `class="result"`) != 2 ||
		!strings.Contains(body, "Nearly the same: <a href=") {
		t.Errorf("search page:\n%s", body)
	}
	_, _, body = get(t, srv, "/api/search?q=crawler")
	var a struct {
		Total   int
		Results []struct {
			URL            string
			NearDuplicates []struct{ URL string } `json:"near_duplicates"`
		}
	}
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatal(err)
	}
	folded := 0
	for _, r := range a.Results {
		folded += len(r.NearDuplicates)
	}
	if a.Total != 3 || len(a.Results) != 2 || folded != 1 {
		t.Errorf("API: %s", body)
	}
}

// TestLongQueryEchoesWhatWasSearched: of a 99 KB query only the first
// 4 KB are read; the page echoes what was searched (in the box, the
// heading, the pagination and the facet), not the whole query a dozen
// times over, and so does the API.
func TestLongQueryEchoesWhatWasSearched(t *testing.T) {
	var docs []*textindex.Document
	for i := range 30 {
		docs = append(docs, &textindex.Document{
			URL:     fmt.Sprintf("http://h%d.example/%d", i%3, i),
			Title:   fmt.Sprintf("Vacuum %d", i),
			Content: fmt.Sprintf("A vacuum cleaner, model %d.", i),
		})
	}
	srv := newTestServer(t, searchweb.Options{PageSize: 4}, docs...)
	q := strings.TrimSpace(strings.Repeat("vacuum ", 99<<10/7))
	code, _, body := get(t, srv, "/search?q="+url.QueryEscape(q))
	if code != http.StatusOK || !strings.Contains(body, "Results 1–4 of 30") {
		t.Fatalf("status %d:\n%.2000s", code, body)
	}
	if len(body) > 32<<10 {
		t.Errorf("the page of a %d KB query of which 4 KB were searched is %d KB", len(q)>>10, len(body)>>10)
	}
	for _, want := range []string{
		`value="vacuum"`,
		`href="/search?p=2&amp;q=vacuum"`,
		`href="/search?q=vacuum&#43;site%3Ah0.example"`,
		"The query was cut",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}

	code, _, body = get(t, srv, "/api/search?q="+url.QueryEscape(q))
	var a struct {
		Query string `json:"query"`
		Cut   bool   `json:"query_cut"`
		Total int    `json:"total"`
	}
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatal(err)
	}
	if code != http.StatusOK || a.Query != "vacuum" || !a.Cut || a.Total != 30 || len(body) > 32<<10 {
		t.Errorf("API: status %d, query %.40q, cut %v, total %d, %d bytes", code, a.Query, a.Cut, a.Total, len(body))
	}
}

// TestFacetAndSiteTellPortsApart: a host on another port is another
// site, in the facet, its links and site:.
func TestFacetAndSiteTellPortsApart(t *testing.T) {
	var docs []*textindex.Document
	for i, u := range []string{
		"http://127.0.0.1:8081/a", "http://127.0.0.1:8081/b", "http://127.0.0.1:8081/c",
		"http://127.0.0.1:18083/d", "http://127.0.0.1:18083/e",
		"http://127.0.0.1/f",
	} {
		docs = append(docs, &textindex.Document{URL: u, Title: fmt.Sprintf("Index %d", i), Content: fmt.Sprintf("index page %d", i)})
	}
	srv := newTestServer(t, searchweb.Options{}, docs...)
	_, _, body := get(t, srv, "/api/search?q=index")
	var a apiAnswer
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(a.Hosts)
	if want := "[{127.0.0.1:8081 3} {127.0.0.1:18083 2} {127.0.0.1 1}]"; got != want {
		t.Errorf("hosts = %s, want %s", got, want)
	}

	_, _, body = get(t, srv, "/search?q=index")
	m := regexp.MustCompile(`<a href="(/search\?q=[^"]*)">127\.0\.0\.1:18083</a> <span class="n">2</span>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no facet link for 127.0.0.1:18083:\n%s", body)
	}
	for _, path := range []string{html.UnescapeString(m[1]), "/search?q=" + url.QueryEscape("site:127.0.0.1:18083 index")} {
		_, _, body = get(t, srv, path)
		if !strings.Contains(body, "Results 1–2 of 2") || strings.Contains(body, "127.0.0.1:8081/") {
			t.Errorf("%s does not keep to 127.0.0.1:18083:\n%s", path, body)
		}
	}
}

// TestOpenSearchIgnoresHostHeader: the description's URLs never come from
// the request's Host header, which anyone can set.
func TestOpenSearchIgnoresHostHeader(t *testing.T) {
	srv := newTestServer(t, searchweb.Options{})
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/opensearch.xml", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "evil.example"
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if strings.Contains(string(body), "evil.example") {
		t.Errorf("the description follows the Host header: %s", body)
	}
}

// TestQueryProblemsInWords: a query that cannot be searched is told why,
// in the words that fit it.
func TestQueryProblemsInWords(t *testing.T) {
	srv := newTestServer(t, searchweb.Options{}, gophers(3)...)
	for _, tc := range []struct {
		query     string
		want, not string
	}{
		{"caf\xe9 \xff\xfe", "not UTF-8", "-word and site:host"},
		{"!!! ***", "only letters and digits", "-word and site:host"},
		{"-gopher site:a.example", "-word and site:host only narrow a search", "UTF-8"},
	} {
		code, _, body := get(t, srv, "/search?q="+url.QueryEscape(tc.query))
		if code == http.StatusInternalServerError || !strings.Contains(body, tc.want) || strings.Contains(body, tc.not) {
			t.Errorf("%q: status %d, want %q and not %q:\n%s", tc.query, code, tc.want, tc.not, body)
		}
		_, _, body = get(t, srv, "/api/search?q="+url.QueryEscape(tc.query))
		var a apiAnswer
		if err := json.Unmarshal([]byte(body), &a); err != nil || !strings.Contains(a.Problem, tc.want) {
			t.Errorf("API %q: problem %q, want %q", tc.query, a.Problem, tc.want)
		}
	}
}

// TestQueryShownQuotedOnce: the page quotes the query it names, once: a
// phrase query is not shown in quotes inside quotes.
func TestQueryShownQuotedOnce(t *testing.T) {
	srv := newTestServer(t, searchweb.Options{}, gophers(3)...)
	// What a reader sees: <q> is rendered in quotation marks.
	seen := func(body string) string {
		r := strings.NewReplacer("<q>", "“", "</q>", "”")
		return html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(r.Replace(body), ""))
	}
	for q, want := range map[string]string{
		`"write ahead log"`:  `No pages match "write ahead log".`,
		`"burrowing rodent"`: `Results 1–3 of 3 for "burrowing rodent"`,
		`gopher`:             `Results 1–3 of 3 for “gopher”`,
	} {
		_, _, body := get(t, srv, "/search?q="+url.QueryEscape(q))
		text := seen(body)
		if !strings.Contains(text, want) || strings.Contains(text, `“"`) || strings.Contains(text, `"”`) {
			t.Errorf("%s: the page reads:\n%s\nwant %q", q, text, want)
		}
	}
}

// releaseNotes is articles long enough for simhash, each posted on
// several days (near-duplicates of each other), and short pages of their
// own, all about the crawler.
func releaseNotes(articles, days, short int) []*textindex.Document {
	var docs []*textindex.Document
	for k := range articles {
		var text strings.Builder
		for n := range 300 {
			fmt.Fprintf(&text, "Change %d of release %d makes the crawler better in way %d. ", n, k, n*(k+3))
		}
		for d := range days {
			docs = append(docs, &textindex.Document{
				URL:     fmt.Sprintf("http://notes.example/%d/day%d", k, d),
				Title:   fmt.Sprintf("Release %d", k),
				Content: fmt.Sprintf("Posted on day %d. ", d) + text.String(),
			})
		}
	}
	animals := []string{"heron", "badger", "otter", "lynx", "marten", "stoat", "vole", "wren", "newt", "moth", "carp", "kite"}
	places := []string{"river", "barn", "quarry", "orchard", "harbour", "meadow", "chapel", "mill", "forge", "dune", "cellar", "bridge"}
	for j := range short {
		docs = append(docs, &textindex.Document{
			URL:     fmt.Sprintf("http://other.example/%d", j),
			Title:   fmt.Sprintf("Sighting %d", j),
			Content: fmt.Sprintf("The crawler met a %s by the %s and counted %d of them.", animals[j%12], places[(j*5)%12], j+2),
		})
	}
	// Results of equal score are in LinkID order: the same in every run.
	for _, d := range docs {
		d.LinkID = uuid.NewSHA1(uuid.NameSpaceURL, []byte(d.URL))
	}
	return docs
}

// pageResults are the results of a search page: each result's URL, then
// those of the near-duplicates folded under it.
func pageResults(body string) [][]string {
	var out [][]string
	for _, li := range regexp.MustCompile(`(?s)<li class="result">(.*?)</li>`).FindAllStringSubmatch(body, -1) {
		urls := []string{html.UnescapeString(regexp.MustCompile(`<cite>([^<]*)</cite>`).FindStringSubmatch(li[1])[1])}
		if near := regexp.MustCompile(`Nearly the same: (.*?)</p>`).FindStringSubmatch(li[1]); near != nil {
			for _, a := range regexp.MustCompile(`<a href="([^"]*)">`).FindAllStringSubmatch(near[1], -1) {
				urls = append(urls, html.UnescapeString(a[1]))
			}
		}
		out = append(out, urls)
	}
	return out
}

// TestPagingShowsEveryResultOnce: going from page to page (rel=next)
// shows every result once, each page but the last with PageSize results
// and the near-duplicates folded under them; the API, asked for the same
// offset and limit, answers the same page and where the next one starts.
func TestPagingShowsEveryResultOnce(t *testing.T) {
	srv := newTestServer(t, searchweb.Options{PageSize: 3}, releaseNotes(4, 3, 7)...)
	seen := map[string]int{}
	folded := 0
	first := uint64(1)
	for page, next := 1, "/search?q=crawler"; next != ""; page++ {
		if page > 19 {
			t.Fatal("more pages than results")
		}
		_, _, body := get(t, srv, next)
		results := pageResults(body)
		m := regexp.MustCompile(`Results (\d+)–(\d+) of 19`).FindStringSubmatch(body)
		if m == nil || m[1] != fmt.Sprint(first) {
			t.Fatalf("page %d does not start at result %d:\n%s", page, first, body)
		}
		var last uint64
		fmt.Sscan(m[2], &last)
		read := 0
		for _, r := range results {
			for _, u := range r {
				seen[u]++
				read++
			}
			folded += len(r) - 1
		}
		if uint64(read) != last-first+1 {
			t.Errorf("page %d: results %d–%d, but %d shown: %q", page, first, last, read, results)
		}
		next = ""
		if n := regexp.MustCompile(`<a rel="next" href="([^"]*)">`).FindStringSubmatch(body); n != nil {
			next = html.UnescapeString(n[1])
			if want := fmt.Sprintf("/search?p=%d&q=crawler", page+1); next != want {
				t.Errorf("page %d: next is %s, want %s", page, next, want)
			}
			if len(results) != 3 {
				t.Errorf("page %d of several shows %d results, want 3: %q", page, len(results), results)
			}
		}

		var a struct {
			Offset  uint64 `json:"offset"`
			Next    uint64 `json:"next_offset"`
			Results []struct {
				URL            string
				NearDuplicates []struct{ URL string } `json:"near_duplicates"`
			}
		}
		_, _, raw := get(t, srv, fmt.Sprintf("/api/search?q=crawler&offset=%d&limit=3", first-1))
		if err := json.Unmarshal([]byte(raw), &a); err != nil {
			t.Fatal(err)
		}
		var api [][]string
		for _, r := range a.Results {
			urls := []string{r.URL}
			for _, n := range r.NearDuplicates {
				urls = append(urls, n.URL)
			}
			api = append(api, urls)
		}
		wantNext := last
		if next == "" {
			wantNext = 0
		}
		if fmt.Sprint(api) != fmt.Sprint(results) || a.Offset != first-1 || a.Next != wantNext {
			t.Errorf("page %d shows %q, next at %d; the API at offset %d: %q, next_offset %d", page, results, wantNext, a.Offset, api, a.Next)
		}
		first = last + 1
	}
	if len(seen) != 19 || folded == 0 {
		t.Errorf("paging showed %d results of 19, %d folded", len(seen), folded)
	}
	for u, n := range seen {
		if n != 1 {
			t.Errorf("%s shown %d times", u, n)
		}
	}
}

// recordingSearcher records the queries it is given.
type recordingSearcher struct {
	searchweb.Searcher
	mu      sync.Mutex
	queries []textindex.Query
}

func (r *recordingSearcher) SearchContext(ctx context.Context, q textindex.Query) (textindex.Iterator, error) {
	r.mu.Lock()
	r.queries = append(r.queries, q)
	r.mu.Unlock()
	return r.Searcher.SearchContext(ctx, q)
}

// TestFacetReadsURLsOnly: the host facet's pass over the best results
// asks the index for their URLs only (textindex.Query.URLsOnly), the page
// of results for everything.
func TestFacetReadsURLsOnly(t *testing.T) {
	idx := memory.New()
	defer idx.Close()
	for i := range 3 {
		if err := idx.Index(&textindex.Document{LinkID: uuid.New(), URL: fmt.Sprintf("http://h%d.example/", i), Title: "T", Content: "facet words"}); err != nil {
			t.Fatal(err)
		}
	}
	rec := &recordingSearcher{Searcher: idx}
	srv := newTestServer(t, searchweb.Options{Index: rec})
	if code, _, _ := get(t, srv, "/api/search?q=facet"); code != 200 {
		t.Fatalf("status %d", code)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.queries) != 2 || rec.queries[0].URLsOnly || !rec.queries[1].URLsOnly {
		t.Errorf("queries %+v, want the page's with everything, then the facet's with URLs only", rec.queries)
	}
}

// TestSearchLanguage: ?lang= reads the query in another language (its
// words find their forms as that language makes them), the page keeps it
// in its search box, its page and facet links and the API's answer, and a
// value that is no language tag is refused in words.
func TestSearchLanguage(t *testing.T) {
	var docs []*textindex.Document
	for i := range 12 {
		docs = append(docs, &textindex.Document{URL: fmt.Sprintf("http://h%d.example/%d", i%2, i), Title: fmt.Sprintf("Notes %d", i),
			Content: "Les tables sont nettoyées chaque nuit.", Language: "fr"})
	}
	srv := newTestServer(t, searchweb.Options{PageSize: 5}, docs...)
	if _, _, body := get(t, srv, "/search?q=nettoyer"); strings.Contains(body, "http://h0.example/") {
		t.Errorf("nettoyer read as English found the French pages")
	}
	code, _, body := get(t, srv, "/search?q=nettoyer&lang=fr")
	if code != 200 || !strings.Contains(body, "http://h0.example/") {
		t.Fatalf("lang=fr: status %d, no French page in\n%s", code, body)
	}
	for _, want := range []string{`<input type="hidden" name="lang" value="fr">`, `/search?lang=fr&amp;p=2&amp;q=nettoyer`, `lang=fr&amp;q=nettoyer&#43;site%3Ah0.example`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	code, _, body = get(t, srv, "/api/search?q=nettoyer&lang=fr")
	var a struct {
		Lang  string `json:"lang"`
		Total int    `json:"total"`
	}
	if err := json.Unmarshal([]byte(body), &a); err != nil || code != 200 || a.Lang != "fr" || a.Total != len(docs) {
		t.Fatalf("API: status %d, %+v, %v", code, a, err)
	}
	for _, bad := range []string{"f", "fr_FR", "<b>", "fr-" + strings.Repeat("x", 40), "1fr"} {
		code, _, body := get(t, srv, "/search?q=nettoyer&lang="+url.QueryEscape(bad))
		if code != http.StatusBadRequest || !strings.Contains(body, "language tag") {
			t.Errorf("lang=%q: status %d", bad, code)
		}
	}
	for _, good := range []string{"fr", "pt-BR", "zh-Hant-TW", "en-GB"} {
		if !searchweb.ValidLanguage(good) {
			t.Errorf("%q refused", good)
		}
	}
}

package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/crawler/robots"
	"github.com/linksrus/linksrus/crawler/scope"
	"github.com/linksrus/linksrus/linkgraph"
	graphmem "github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/textindex"
	indexmem "github.com/linksrus/linksrus/textindex/memory"
)

// hitLog records the paths a test server was asked for, with the method.
type hitLog struct {
	mu   sync.Mutex
	hits []string
}

func (l *hitLog) add(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hits = append(l.hits, r.Method+" "+r.URL.RequestURI())
}

func (l *hitLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.hits)
}

// loopbackServer starts a test server whose handler records every request.
func loopbackServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *hitLog) {
	t.Helper()
	log := &hitLog{}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s, log
}

// netipLoopback is the allow-list that lets tests reach their own servers.
var netipLoopback = netip.MustParsePrefix("127.0.0.1/32")

// loopbackConfig is a Config that may reach the test servers, and nothing
// else private, through the default getter.
func loopbackConfig() Config {
	return Config{
		FetchOptions: FetchOptions{
			PrivateNetworkDetector: privnet.New(netipLoopback),
			MaxBodyBytes:           1 << 16,
			FetchTimeout:           5 * time.Second,
		},
	}
}

// fetchWith runs one fetch of rawURL and returns the payload, and whether
// it was kept. Idle connections are closed afterwards so goleak sees none.
func fetchWith(t *testing.T, cfg Config, rawURL string) (*Payload, bool) {
	t.Helper()
	cfg, err := cfg.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := cfg.URLGetter.(*http.Client); ok {
		t.Cleanup(c.CloseIdleConnections)
	}
	f, err := NewFetcher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPayload([16]byte{1}, rawURL, time.Time{})
	t.Cleanup(p.MarkAsProcessed)
	out, err := f.Process(context.Background(), p)
	if err != nil {
		t.Fatalf("Process: %v", err)
	}
	return p, out != nil
}

func htmlPage(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/html")
	_, _ = io.WriteString(w, body)
}

// redirectSite serves redirects under /r/ (the path after it is the
// Location) and HTML pages elsewhere.
func redirectSite(t *testing.T) (*httptest.Server, *hitLog) {
	return loopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/r/"):
			code := http.StatusFound
			if c := r.URL.Query().Get("code"); c != "" {
				_, _ = fmt.Sscan(c, &code)
			}
			w.Header().Set("Location", strings.TrimPrefix(r.URL.Path, "/r/"))
			w.WriteHeader(code)
			_, _ = io.WriteString(w, "moved")
		case strings.HasPrefix(r.URL.Path, "/count/"):
			var n int
			_, _ = fmt.Sscan(strings.TrimPrefix(r.URL.Path, "/count/"), &n)
			http.Redirect(w, r, fmt.Sprintf("/count/%d", n+1), http.StatusMovedPermanently)
		case r.URL.Path == "/self":
			http.Redirect(w, r, "./self", http.StatusFound)
		case r.URL.Path == "/loop-a":
			http.Redirect(w, r, "/loop-b", http.StatusFound)
		case r.URL.Path == "/loop-b":
			// The same URL as /loop-a, spelled otherwise.
			http.Redirect(w, r, "HTTP://"+r.Host+"/x/../loop-a#frag", http.StatusFound)
		default:
			htmlPage(w, "<title>"+r.URL.Path+"</title>")
		}
	})
}

// recordingGate admits everything and records what it was asked.
type recordingGate struct {
	mu   sync.Mutex
	seen []string
}

func (g *recordingGate) Admit(_ context.Context, u *url.URL) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seen = append(g.seen, u.Path)
	return nil
}

// Every hop of a chain mixing 301, 302, 303, 307, 308 and relative and
// absolute Locations is followed and checked by the gates; the page's
// FinalURL is the last hop.
func TestFetcherFollowsRedirectChain(t *testing.T) {
	s, hits := redirectSite(t)
	g := &recordingGate{}
	cfg := loopbackConfig()
	cfg.Gates = []Gate{g}
	// 301 -> 303 (relative) -> 307 (absolute) -> 308 -> /page
	d := "/r/" + s.URL + "/r/%2Fpage%3Fcode=308?code=307"
	c := "/r/" + url.PathEscape(d) + "?code=303"
	start := s.URL + "/r/" + url.PathEscape(c) + "?code=301"
	p, kept := fetchWith(t, cfg, start)
	if !kept {
		t.Fatalf("dropped: %v, %v", p.outcome.reason, p.outcome.err)
	}
	if want := s.URL + "/page"; p.FinalURL != want {
		t.Errorf("FinalURL = %q, want %q", p.FinalURL, want)
	}
	if p.URL != start || p.StatusCode != 200 || string(p.Body) != "<title>/page</title>" {
		t.Errorf("URL %q status %d body %q", p.URL, p.StatusCode, p.Body)
	}
	if n := len(hits.list()); n != 5 {
		t.Errorf("server saw %d requests, want 5: %q", n, hits.list())
	}
	if len(g.seen) != 5 || g.seen[4] != "/page" {
		t.Errorf("gate saw %q, want the 5 hops", g.seen)
	}
}

func TestFetcherRedirectRefusals(t *testing.T) {
	refuse := GateFunc(func(_ context.Context, u *url.URL) error {
		switch {
		case strings.HasPrefix(u.Path, "/outside"):
			return Skip(ReasonScope, errors.New("not in scope"))
		case strings.HasPrefix(u.Path, "/deep"):
			return Skip(ReasonDepth, nil)
		}
		return nil
	})
	cases := []struct {
		name         string
		path         string
		maxRedirects int
		reason       Reason
		errIs        error
		requests     int // how many requests the server should see
	}{
		{name: "loop, spelt differently", path: "/loop-a", reason: ReasonRedirectLoop, requests: 2},
		{name: "to itself", path: "/self", reason: ReasonRedirectLoop, requests: 1},
		{name: "too many", path: "/count/0", maxRedirects: 3, reason: ReasonTooManyRedirects, requests: 4},
		{name: "none allowed", path: "/r/%2Fpage", maxRedirects: -1, reason: ReasonTooManyRedirects, requests: 1},
		{name: "private address", path: "/r/http:%2F%2F10.1.2.3%2Fadmin", reason: ReasonPrivateNetwork, errIs: privnet.ErrPrivateAddress, requests: 1},
		{name: "metadata address", path: "/r/http:%2F%2F169.254.169.254%2Flatest%2F", reason: ReasonPrivateNetwork, errIs: privnet.ErrPrivateAddress, requests: 1},
		{name: "out of scope", path: "/r/%2Foutside%2Fpage", reason: ReasonScope, requests: 1},
		{name: "too deep", path: "/r/%2Fdeep", reason: ReasonDepth, requests: 1},
		{name: "other scheme", path: "/r/ftp:%2F%2Fexample.com%2F", reason: ReasonInvalidURL, requests: 1},
		{name: "non-html extension", path: "/r/%2Fimage.png%3Fv=1", reason: ReasonExtension, requests: 1},
		{name: "unparsable location", path: "/r/http:%2F%2F%5B::1", reason: ReasonFetchError, requests: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, hits := redirectSite(t)
			cfg := loopbackConfig()
			cfg.Gates = []Gate{refuse}
			cfg.MaxRedirects = c.maxRedirects
			p, kept := fetchWith(t, cfg, s.URL+c.path)
			if kept {
				t.Fatalf("kept %q", p.FinalURL)
			}
			if p.outcome.reason != c.reason {
				t.Errorf("reason = %v, want %v (err %v)", p.outcome.reason, c.reason, p.outcome.err)
			}
			if c.errIs != nil && !errors.Is(p.outcome.err, c.errIs) {
				t.Errorf("err = %v, want one matching %v", p.outcome.err, c.errIs)
			}
			if c.reason != ReasonExtension && c.reason != ReasonDepth && p.outcome.err == nil {
				t.Error("no error says what was refused")
			}
			if n := len(hits.list()); n != c.requests {
				t.Errorf("server saw %d requests, want %d: %q", n, c.requests, hits.list())
			}
			if p.FinalURL != "" {
				t.Errorf("FinalURL = %q for a page not fetched", p.FinalURL)
			}
		})
	}
}

// A redirect into a part of the site robots.txt disallows is not followed.
func TestFetcherRedirectObeysRobots(t *testing.T) {
	s, hits := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			_, _ = io.WriteString(w, "User-agent: *\nDisallow: /private/\n")
		case "/open":
			http.Redirect(w, r, "/private/page", http.StatusMovedPermanently)
		default:
			htmlPage(w, "secret")
		}
	})
	cfg, err := loopbackConfig().withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	// A gate on the site's robots.txt rules, as package engine's.
	rules, _, err := robots.Fetch(context.Background(), cfg.URLGetter, s.URL, robots.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Gates = []Gate{GateFunc(func(_ context.Context, u *url.URL) error {
		if !rules.AllowedURL(u) {
			return Skip(ReasonRobots, errors.New("disallowed by robots.txt"))
		}
		return nil
	})}
	p, kept := fetchWith(t, cfg, s.URL+"/open")
	if kept || p.outcome.reason != ReasonRobots {
		t.Fatalf("kept %v, reason %v (%v); want robots", kept, p.outcome.reason, p.outcome.err)
	}
	if !strings.Contains(p.outcome.err.Error(), "/private/page") {
		t.Errorf("err %q does not name the refused target", p.outcome.err)
	}
	if got, want := hits.list(), []string{"GET /robots.txt", "GET /open"}; !slices.Equal(got, want) {
		t.Errorf("requests = %q, want %q", got, want)
	}
}

// followingGetter follows redirects itself, as a custom URLGetter may.
type followingGetter struct{ c *http.Client }

func (g followingGetter) Do(req *http.Request) (*http.Response, error) { return g.c.Do(req) }

// When the getter follows redirects on its own, the page it ends at is
// still checked.
func TestFetcherChecksFinalURLOfFollowingGetter(t *testing.T) {
	s, _ := redirectSite(t)
	cfg := loopbackConfig()
	client := NewURLGetter(cfg.PrivateNetworkDetector)
	defer client.CloseIdleConnections()
	cfg.URLGetter = followingGetter{client}
	cfg.Gates = []Gate{GateFunc(func(_ context.Context, u *url.URL) error {
		if u.Path == "/outside" {
			return Skip(ReasonScope, nil)
		}
		return nil
	})}
	p, kept := fetchWith(t, cfg, s.URL+"/r/%2Finside")
	if !kept || p.FinalURL != s.URL+"/inside" {
		t.Errorf("kept %v FinalURL %q (%v)", kept, p.FinalURL, p.outcome.err)
	}
	p, kept = fetchWith(t, cfg, s.URL+"/r/%2Foutside")
	if kept || p.outcome.reason != ReasonScope {
		t.Errorf("kept %v reason %v, want scope", kept, p.outcome.reason)
	}
}

// A caller's *http.Client keeps following redirects when used elsewhere:
// the Fetcher works on a copy.
func TestWithoutRedirectsLeavesClientAlone(t *testing.T) {
	c := &http.Client{}
	g := WithoutRedirects(c)
	if g == URLGetter(c) || c.CheckRedirect != nil {
		t.Fatal("the caller's client was modified")
	}
	if err := g.(*http.Client).CheckRedirect(nil, nil); !errors.Is(err, http.ErrUseLastResponse) {
		t.Fatalf("CheckRedirect = %v", err)
	}
	var other URLGetter = followingGetter{c}
	if WithoutRedirects(other) != other {
		t.Fatal("an unknown getter was replaced")
	}
}

// Through a whole crawl, each URL's Outcome says where a redirect led, or
// why it was not followed.
func TestCrawlReportsRedirects(t *testing.T) {
	s, _ := redirectSite(t)
	var mu sync.Mutex
	got := map[string]Outcome{}
	cfg := loopbackConfig()
	cfg.Workers = 2
	cfg.OnOutcome = func(o Outcome) {
		mu.Lock()
		defer mu.Unlock()
		got[strings.TrimPrefix(o.URL, s.URL)] = o
	}
	c, err := NewCrawler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"/r/%2Fhome", "/loop-a", "/r/http:%2F%2F10.0.0.1%2F"}
	var links []*linkgraph.Link
	for _, p := range paths {
		links = append(links, &linkgraph.Link{ID: uuid.New(), URL: s.URL + p})
	}
	if n, err := c.Crawl(context.Background(), &sliceLinks{links: links}); n != 1 || err != nil {
		t.Fatalf("Crawl = %d, %v", n, err)
	}
	want := map[string]struct {
		reason Reason
		final  string
		status int
	}{
		"/r/%2Fhome":                {ReasonCrawled, s.URL + "/home", 200},
		"/loop-a":                   {ReasonRedirectLoop, "", 302},
		"/r/http:%2F%2F10.0.0.1%2F": {ReasonPrivateNetwork, "", 302},
	}
	for path, w := range want {
		o := got[path]
		if o.Reason != w.reason || o.FinalURL != w.final || o.StatusCode != w.status {
			t.Errorf("%s: %v %q %d (%v), want %v %q %d", path, o.Reason, o.FinalURL, o.StatusCode, o.Err, w.reason, w.final, w.status)
		}
	}
}

// sliceLinks is a linkgraph.LinkIterator over a slice.
type sliceLinks struct {
	links []*linkgraph.Link
	i     int
}

func (it *sliceLinks) Next() bool            { it.i++; return it.i <= len(it.links) }
func (it *sliceLinks) Link() *linkgraph.Link { return it.links[it.i-1] }
func (it *sliceLinks) Error() error          { return nil }
func (it *sliceLinks) Close() error          { return nil }

// A redirect to another host is refused by a same-host ScopeGate (before
// any request to it), and one within the host followed.
func TestFetcherRedirectOutOfScope(t *testing.T) {
	s, hits := redirectSite(t)
	seed, _ := url.Parse(s.URL + "/")
	sc, err := scope.New(scope.Config{SameHostOnly: true}, []*url.URL{seed})
	if err != nil {
		t.Fatal(err)
	}
	gate, err := NewScopeGate(sc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := loopbackConfig()
	cfg.Gates = []Gate{gate}
	// The same server under another name: another host for the scope.
	other := strings.Replace(s.URL, "127.0.0.1", "localhost", 1)
	p, kept := fetchWith(t, cfg, s.URL+"/r/"+url.PathEscape(other+"/page"))
	if kept || p.outcome.reason != ReasonScope || !errors.Is(p.outcome.err, ErrOutOfScope) {
		t.Fatalf("kept %v, reason %v (%v); want scope", kept, p.outcome.reason, p.outcome.err)
	}
	p, kept = fetchWith(t, cfg, s.URL+"/r/%2Fpage")
	if !kept {
		t.Fatalf("redirect within the host: %v (%v)", p.outcome.reason, p.outcome.err)
	}
	if got := len(hits.list()); got != 3 {
		t.Errorf("server saw %d requests, want 3: %q", got, hits.list())
	}
	if _, err := NewScopeGate(nil); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("NewScopeGate(nil) = %v", err)
	}
}

// A URL that net/url writes otherwise ("a b" → "a%20b") is not mistaken
// for a redirect, and the gates are asked about it once.
func TestFetcherRespellingIsNotARedirect(t *testing.T) {
	s, _ := redirectSite(t)
	g := &recordingGate{}
	cfg := loopbackConfig()
	cfg.Gates = []Gate{g}
	p, kept := fetchWith(t, cfg, s.URL+"/a b")
	if !kept || p.FinalURL != s.URL+"/a b" || len(g.seen) != 1 {
		t.Fatalf("kept %v FinalURL %q, gate asked %d times", kept, p.FinalURL, len(g.seen))
	}
}

// TestRedirectedPageIndexedUnderFinalURL: with the graph and the index
// written side by side, the index of a redirected page still gets the ID
// the graph stores it under (its final URL's), and the page is marked
// retrieved once indexed. The redirecting link is the page's alias in the
// index (as in the graph): a Redirect document of the same text, never a
// search result of its own, listed in the page's AlsoAt.
func TestRedirectedPageIndexedUnderFinalURL(t *testing.T) {
	s, _ := redirectSite(t)
	g := graphmem.New()
	idx := indexmem.New()
	cfg := loopbackConfig()
	cfg.Graph, cfg.Index = g, idx
	c, err := NewCrawler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	start := &linkgraph.Link{URL: s.URL + "/r/%2Fhome"}
	if err := g.UpsertLink(start); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Crawl(context.Background(), &sliceLinks{links: []*linkgraph.Link{start}}); n != 1 || err != nil {
		t.Fatalf("Crawl = %d, %v", n, err)
	}
	final := &linkgraph.Link{URL: s.URL + "/home"}
	if err := g.UpsertLink(final); err != nil {
		t.Fatal(err)
	}
	if final.RetrievedAt.IsZero() {
		t.Error("the final URL is not marked retrieved")
	}
	doc, err := idx.FindByID(final.ID)
	if err != nil {
		t.Fatalf("the page is not indexed under its final URL's ID %s: %v", final.ID, err)
	}
	if doc.URL != final.URL {
		t.Errorf("indexed as %q, want %q", doc.URL, final.URL)
	}
	alias, err := idx.FindByID(start.ID)
	if err != nil || !alias.Redirect || alias.DuplicateOf != final.ID || alias.URL != start.URL {
		t.Fatalf("the redirecting link is not the page's alias: %+v, %v", alias, err)
	}
	it, err := idx.Search(textindex.Query{Expression: doc.Title + " " + doc.Content})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if !it.Next() || it.Document().LinkID != final.ID || !slices.Equal(it.Document().AlsoAt, []string{start.URL}) || it.Next() {
		t.Fatalf("search: want one result, the final URL's, also at %s", start.URL)
	}
}

// headSite serves an image, an HTML page, a page whose server refuses
// HEAD, and a redirect to the image.
func headSite(t *testing.T) (string, *hitLog) {
	s, hits := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/img":
			w.Header().Set("Content-Type", "image/png")
			_, _ = io.WriteString(w, strings.Repeat("\x89PNG", 1000))
		case "/no-head":
			if r.Method == http.MethodHead {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			htmlPage(w, "page")
		case "/to-img":
			http.Redirect(w, r, "/img", http.StatusFound)
		default:
			htmlPage(w, "page")
		}
	})
	return s.URL, hits
}

// With FetchOptions.HeadFirst, non-HTML is skipped on the HEAD's word, without a
// GET; everything else (HTML, 405 to the HEAD, a redirect) is fetched with
// a GET after the HEAD, and every redirect hop gets its own HEAD.
func TestFetcherHeadFirst(t *testing.T) {
	cases := []struct {
		path     string
		kept     bool
		reason   Reason
		requests []string
	}{
		{path: "/img", reason: ReasonContentType, requests: []string{"HEAD /img"}},
		{path: "/page", kept: true, requests: []string{"HEAD /page", "GET /page"}},
		{path: "/no-head", kept: true, requests: []string{"HEAD /no-head", "GET /no-head"}},
		{path: "/to-img", reason: ReasonContentType, requests: []string{"HEAD /to-img", "GET /to-img", "HEAD /img"}},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			base, hits := headSite(t)
			cfg := loopbackConfig()
			cfg.HeadFirst = true
			p, kept := fetchWith(t, cfg, base+c.path)
			if kept != c.kept || (!kept && p.outcome.reason != c.reason) {
				t.Fatalf("kept %v reason %v (%v), want %v %v", kept, p.outcome.reason, p.outcome.err, c.kept, c.reason)
			}
			if !kept && (p.outcome.bytes != 0 || p.ContentType != "image/png") {
				t.Errorf("skipped page: %d body bytes read, Content-Type %q", p.outcome.bytes, p.ContentType)
			}
			if kept && (string(p.Body) != "page" || p.FinalURL != base+c.path) {
				t.Errorf("kept page: body %q FinalURL %q", p.Body, p.FinalURL)
			}
			if got := hits.list(); !slices.Equal(got, c.requests) {
				t.Errorf("requests = %q, want %q", got, c.requests)
			}
		})
	}
}

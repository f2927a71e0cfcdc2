package crawler_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/linkgraph"
	graphmem "github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/textindex"
	indexmem "github.com/linksrus/linksrus/textindex/memory"
)

// validatingSite serves pages that honour conditional requests as nginx
// does (ETag and Last-Modified on every page, 304 when either validator
// matches), and counts what it answered, per method, path and status, and
// the validators it was asked with.
type validatingSite struct {
	*httptest.Server
	mu      sync.Mutex
	version map[string]int // a page's ETag changes with its version
	counts  map[string]int // "GET /a 200" -> n
	asked   map[string]string
}

func newValidatingSite(t *testing.T) *validatingSite {
	s := &validatingSite{version: map[string]int{}, counts: map[string]int{}, asked: map[string]string{}}
	lastMod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Format(http.TimeFormat)
	bodies := map[string]string{
		"/":          `<title>Home</title><p>welcome</p><a href="/a">A</a> <a href="/dated">D</a> <a href="/plain">P</a>`,
		"/a":         `<title>A</title><p>alpha</p><a href="/">home</a>`,
		"/dated":     `<title>Dated</title><p>only a date</p>`,
		"/plain":     `<title>Plain</title><p>no validators at all</p>`,
		"/huge-etag": `<title>Huge</title><p>an ETag too long to keep</p>`,
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			s.note(r, http.StatusMovedPermanently)
			http.Redirect(w, r, "/a", http.StatusMovedPermanently)
			return
		}
		body, ok := bodies[r.URL.Path]
		if !ok {
			s.note(r, http.StatusNotFound)
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		etag := fmt.Sprintf(`"%s-v%d"`, strings.Trim(r.URL.Path, "/"), s.version[r.URL.Path])
		s.mu.Unlock()
		switch r.URL.Path {
		case "/dated":
			w.Header().Set("Last-Modified", lastMod)
		case "/plain":
		case "/huge-etag":
			w.Header().Set("ETag", `"`+strings.Repeat("h", linkgraph.MaxValidatorLength)+`"`)
		default:
			w.Header().Set("ETag", etag)
			w.Header().Set("Last-Modified", lastMod)
		}
		inm, ims := r.Header.Get("If-None-Match"), r.Header.Get("If-Modified-Since")
		// RFC 9110 13.2.2: If-None-Match wins over If-Modified-Since.
		if (inm != "" && inm == w.Header().Get("ETag")) || (inm == "" && ims != "" && ims == w.Header().Get("Last-Modified")) {
			s.note(r, http.StatusNotModified)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		s.note(r, http.StatusOK)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *validatingSite) note(r *http.Request, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[fmt.Sprintf("%s %s %d", r.Method, r.URL.Path, status)]++
	s.asked[r.Method+" "+r.URL.Path] = r.Header.Get("If-None-Match") + "|" + r.Header.Get("If-Modified-Since")
}

// take returns the counts so far and starts new ones.
func (s *validatingSite) take() (counts map[string]int, asked map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	counts, asked = s.counts, s.asked
	s.counts, s.asked = map[string]int{}, map[string]string{}
	return counts, asked
}

// countingIndex counts the documents written to it.
type countingIndex struct {
	mem  *indexmem.Index
	mu   sync.Mutex
	docs map[uuid.UUID]int
}

func (c *countingIndex) Index(d *textindex.Document) error {
	c.mu.Lock()
	c.docs[d.LinkID]++
	c.mu.Unlock()
	return c.mem.Index(d)
}

func (c *countingIndex) take() map[uuid.UUID]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.docs
	c.docs = map[uuid.UUID]int{}
	return d
}

func conditionalCrawler(t *testing.T, g crawler.Graph, ix crawler.Indexer, log *outcomeLog, headFirst bool) *crawler.Crawler {
	t.Helper()
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.1/32")),
			Workers:                4,
			FetchTimeout:           5 * time.Second,
			HeadFirst:              headFirst,
		},
		Graph:     g,
		Index:     ix,
		OnOutcome: log.record,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A recrawl asks for every page with the validators of its last retrieval;
// the pages answered 304 are not downloaded, parsed or indexed again, keep
// their edges (refreshed, so that a later RemoveStaleEdges keeps them) and
// get a new retrieval time; the others are crawled as usual.
func TestCrawlRecrawlsConditionally(t *testing.T) {
	for _, headFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("headFirst=%v", headFirst), func(t *testing.T) {
			s := newValidatingSite(t)
			g := graphmem.New()
			ix := &countingIndex{mem: indexmem.New(), docs: map[uuid.UUID]int{}}
			defer g.Close()
			defer ix.mem.Close()
			ids := map[string]uuid.UUID{}
			for _, p := range []string{"/", "/a", "/dated", "/plain", "/huge-etag"} {
				l := &linkgraph.Link{URL: s.URL + p}
				if err := g.UpsertLink(l); err != nil {
					t.Fatal(err)
				}
				ids[p] = l.ID
			}
			log := &outcomeLog{m: map[string]crawler.Outcome{}}
			crawl := func() {
				t.Helper()
				log.mu.Lock()
				clear(log.m)
				log.mu.Unlock()
				// Every link of the graph, as a recrawl of everything.
				it, err := g.Links(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
				if err != nil {
					t.Fatal(err)
				}
				defer it.Close()
				if _, err := conditionalCrawler(t, g, ix, log, headFirst).Crawl(context.Background(), it); err != nil {
					t.Fatal(err)
				}
			}

			crawl()
			counts, asked := s.take()
			for _, p := range []string{"/", "/a", "/dated", "/plain"} {
				if counts["GET "+p+" 200"] != 1 {
					t.Errorf("first crawl: GET %s answered 200 %d times, want once (%v)", p, counts["GET "+p+" 200"], counts)
				}
				if asked["GET "+p] != "|" {
					t.Errorf("first crawl: GET %s sent validators %q it had none of", p, asked["GET "+p])
				}
			}
			home, _ := g.FindLink(ids["/"])
			if home.ETag != `"-v0"` || home.LastModified == "" {
				t.Fatalf("home page stored with validators %q %q", home.ETag, home.LastModified)
			}
			if l, _ := g.FindLink(ids["/huge-etag"]); l.ETag != "" || l.RetrievedAt.IsZero() {
				t.Errorf("a page with an ETag too long to store: stored %q, retrieved %v; want no ETag, crawled", l.ETag, l.RetrievedAt)
			}
			if l, _ := g.FindLink(ids["/plain"]); l.ETag != "" || l.LastModified != "" {
				t.Errorf("page without validators stored %q %q", l.ETag, l.LastModified)
			}
			edgesBefore := edgesOf(t, g, ids["/"])
			firstRetrieved := home.RetrievedAt
			ix.take()

			recrawlStart := time.Now()
			crawl()
			counts, asked = s.take()
			for _, p := range []string{"/", "/a", "/dated"} {
				method := "GET "
				if headFirst {
					method = "HEAD "
				}
				if counts[method+p+" 304"] != 1 || counts["GET "+p+" 200"] != 0 {
					t.Errorf("recrawl of %s: %v, want one %s304 and no 200", p, counts, method)
				}
				if headFirst && counts["GET "+p+" 304"] != 0 {
					t.Errorf("recrawl of %s: a GET after the HEAD's 304", p)
				}
				o := log.m[s.URL+p]
				if !o.Crawled() || !o.Unchanged || o.Bytes != 0 || o.StatusCode != http.StatusNotModified {
					t.Errorf("recrawl of %s: outcome %+v, want crawled, unchanged, nothing read", p, o)
				}
			}
			if got := asked["GET /dated"]; headFirst {
				if got := asked["HEAD /dated"]; !strings.HasPrefix(got, "|") || len(got) == 1 {
					t.Errorf("HEAD /dated asked with %q, want only If-Modified-Since", got)
				}
			} else if !strings.HasPrefix(got, "|") || len(got) == 1 {
				t.Errorf("GET /dated asked with %q, want only If-Modified-Since", got)
			}
			if counts["GET /plain 200"] != 1 || log.m[s.URL+"/plain"].Unchanged {
				t.Errorf("a page without validators is fetched in full: %v", counts)
			}
			reindexed := ix.take()
			for _, p := range []string{"/", "/a", "/dated"} {
				if reindexed[ids[p]] != 0 {
					t.Errorf("unchanged page %s indexed again", p)
				}
			}
			if reindexed[ids["/plain"]] != 1 {
				t.Errorf("page without validators indexed %d times on the recrawl, want 1", reindexed[ids["/plain"]])
			}
			home, _ = g.FindLink(ids["/"])
			if !home.RetrievedAt.After(firstRetrieved) || home.ETag == "" {
				t.Errorf("unchanged home page: retrieved %v (first %v), ETag %q; want a later time, the ETag kept", home.RetrievedAt, firstRetrieved, home.ETag)
			}
			if got := edgesOf(t, g, ids["/"]); strings.Join(got, " ") != strings.Join(edgesBefore, " ") || len(got) == 0 {
				t.Errorf("edges of the unchanged home page %q, want %q", got, edgesBefore)
			}
			it, err := g.Edges(uuid.Nil, uuid.Nil, recrawlStart)
			if err != nil {
				t.Fatal(err)
			}
			for it.Next() {
				if e := it.Edge(); e.Src == ids["/"] {
					t.Errorf("edge of the unchanged home page still at %v, before the recrawl (%v)", e.UpdatedAt, recrawlStart)
				}
			}
			_ = it.Close()
			if doc, err := ix.mem.FindByID(ids["/"]); err != nil || doc.Title != "Home" {
				t.Errorf("unchanged home page's document: %+v, %v", doc, err)
			}

			// The page changes: its new ETag fails the match, and it is
			// crawled and indexed again with the new validators.
			s.mu.Lock()
			s.version["/a"] = 1
			s.mu.Unlock()
			crawl()
			counts, _ = s.take()
			if counts["GET /a 200"] != 1 {
				t.Errorf("changed page: %v, want a 200 for GET /a", counts)
			}
			if ix.take()[ids["/a"]] != 1 {
				t.Errorf("changed page not indexed again")
			}
			if l, _ := g.FindLink(ids["/a"]); l.ETag != `"a-v1"` {
				t.Errorf("changed page stored with ETag %q, want the new one", l.ETag)
			}
		})
	}
}

// retrievedPage starts a validatingSite and a graph holding the page at
// path, retrieved an hour ago with /a's first ETag ("a-v0") as its own.
func retrievedPage(t *testing.T, path string) (*validatingSite, *graphmem.Graph, *linkgraph.Link) {
	t.Helper()
	s := newValidatingSite(t)
	g := graphmem.New()
	t.Cleanup(func() { _ = g.Close() })
	l := &linkgraph.Link{URL: s.URL + path, RetrievedAt: time.Now().Add(-time.Hour), ETag: `"a-v0"`}
	if err := g.UpsertLink(l); err != nil {
		t.Fatal(err)
	}
	return s, g, l
}

// Validators belong to the link's own URL: a redirect's target is requested
// without them (were they sent, /a would answer 304 here).
func TestCrawlRedirectHopCarriesNoValidators(t *testing.T) {
	s, g, l := retrievedPage(t, "/moved")
	log := &outcomeLog{m: map[string]crawler.Outcome{}}
	if _, err := conditionalCrawler(t, g, nil, log, false).Crawl(context.Background(), &sliceIterator{links: []*linkgraph.Link{l}}); err != nil {
		t.Fatal(err)
	}
	counts, asked := s.take()
	if asked["GET /moved"] != `"a-v0"|` || counts["GET /a 200"] != 1 || asked["GET /a"] != "|" {
		t.Errorf("got %v, asked %v; want /moved asked with its ETag, /a without, answered 200", counts, asked)
	}
	if o := log.m[s.URL+"/moved"]; !o.Crawled() || o.Unchanged {
		t.Errorf("outcome %+v, want crawled in full", o)
	}
}

// plainGraph hides the graph's RefreshEdges: the crawler cannot keep an
// unchanged page's edges, so it makes no conditional request.
type plainGraph struct{ crawler.Graph }

func TestCrawlWithoutEdgeRefresherSendsNoValidators(t *testing.T) {
	s, g, l := retrievedPage(t, "/a")
	log := &outcomeLog{m: map[string]crawler.Outcome{}}
	c := conditionalCrawler(t, plainGraph{g}, nil, log, false)
	if _, err := c.Crawl(context.Background(), &sliceIterator{links: []*linkgraph.Link{l}}); err != nil {
		t.Fatal(err)
	}
	counts, asked := s.take()
	if counts["GET /a 200"] != 1 || asked["GET /a"] != "|" {
		t.Errorf("got %v, asked %q; want a plain GET answered 200", counts, asked["GET /a"])
	}
}

// A 304 the crawler did not ask for (no validators sent) is an error status
// like any other, not an unchanged page.
func TestCrawlUnaskedNotModified(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotModified)
	}))
	defer srv.Close()
	g := graphmem.New()
	defer g.Close()
	l := &linkgraph.Link{URL: srv.URL + "/"}
	if err := g.UpsertLink(l); err != nil {
		t.Fatal(err)
	}
	log := &outcomeLog{m: map[string]crawler.Outcome{}}
	if _, err := conditionalCrawler(t, g, nil, log, false).Crawl(context.Background(), &sliceIterator{links: []*linkgraph.Link{l}}); err != nil {
		t.Fatal(err)
	}
	if o := log.m[srv.URL+"/"]; o.Reason != crawler.ReasonHTTPStatus || o.Unchanged {
		t.Errorf("outcome %+v, want an HTTP status skip", o)
	}
	if got, _ := g.FindLink(l.ID); !got.RetrievedAt.IsZero() {
		t.Errorf("page marked retrieved by an unasked 304")
	}
}

// A recrawl with a Recorder archives the 304 answers as they came: a
// response with no body to miss.
func TestCrawlRecordsNotModified(t *testing.T) {
	_, g, l := retrievedPage(t, "/a")
	rec := &memRecorder{}
	log := &outcomeLog{m: map[string]crawler.Outcome{}}
	if _, err := recordingCrawler(t, g, nil, rec, log).Crawl(context.Background(), &sliceIterator{links: []*linkgraph.Link{l}}); err != nil {
		t.Fatal(err)
	}
	if o := log.m[l.URL]; !o.Unchanged {
		t.Fatalf("outcome %+v, want unchanged", o)
	}
	p := rec.page(l.URL)
	if p == nil || p.StatusCode != http.StatusNotModified || len(p.Body) != 0 || p.Truncated || rec.cuts[l.URL] != crawler.BodyWhole {
		t.Fatalf("recorded %+v (cut %v), want the 304 with no body, whole", p, rec.cuts[l.URL])
	}
}

// modifiedFrontier is a LinkFrontier that also knows, for each link, when
// the site says it last changed (a sitemap's lastmod), and hands its pages
// out with it (Payload.ModifiedAt): a Frontier of a caller's own, wrapping
// the one Crawl uses.
type modifiedFrontier struct {
	*crawler.LinkFrontier
	modified map[string]time.Time
}

func (f modifiedFrontier) Next(ctx context.Context, starved func()) (*crawler.Payload, error) {
	p, err := f.LinkFrontier.Next(ctx, starved)
	if p != nil {
		p.ModifiedAt = f.modified[p.URL]
	}
	return p, err
}

// crawlModified crawls links with c, their pages modified as the site says.
func crawlModified(c *crawler.Crawler, links []*linkgraph.Link, modified []time.Time) (int, error) {
	f := modifiedFrontier{LinkFrontier: crawler.NewLinkFrontier(&sliceIterator{links: links}), modified: map[string]time.Time{}}
	defer f.Close()
	for i, l := range links {
		f.modified[l.URL] = modified[i]
	}
	return c.CrawlFrom(context.Background(), f)
}

// A page retrieved after the site says it last changed is not requested
// at all: it is unchanged, its times refreshed; one changed since its
// retrieval is requested (conditionally); without a graph that can
// refresh edges every page is requested.
func TestCrawlSkipsPagesUnchangedBySite(t *testing.T) {
	s := newValidatingSite(t)
	g := graphmem.New()
	defer g.Close()
	retrieved := time.Now().Add(-time.Hour).Truncate(time.Microsecond)
	links := []*linkgraph.Link{
		{URL: s.URL + "/a", RetrievedAt: retrieved, ETag: `"a-v0"`},
		{URL: s.URL + "/dated", RetrievedAt: retrieved},
	}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	modified := []time.Time{retrieved.Add(-time.Hour), retrieved.Add(time.Minute)}
	log := &outcomeLog{m: map[string]crawler.Outcome{}}
	if _, err := crawlModified(conditionalCrawler(t, g, nil, log, false), links, modified); err != nil {
		t.Fatal(err)
	}
	counts, _ := s.take()
	if n := counts["GET /a 200"] + counts["GET /a 304"]; n != 0 {
		t.Errorf("/a, unchanged by the site's word, was requested %d times", n)
	}
	if o := log.m[s.URL+"/a"]; !o.Crawled() || !o.Unchanged || o.StatusCode != 0 {
		t.Errorf("/a outcome %+v, want crawled and unchanged without a response", o)
	}
	if l, _ := g.FindLink(links[0].ID); !l.RetrievedAt.After(retrieved) || l.ETag != `"a-v0"` {
		t.Errorf("/a stored as %+v, want a new retrieval time and its ETag kept", l)
	}
	if counts["GET /dated 200"] != 1 {
		t.Errorf("/dated, changed since its retrieval, was not fetched: %v", counts)
	}

	clear(log.m)
	if _, err := crawlModified(conditionalCrawler(t, plainGraph{g}, nil, log, false), links, modified); err != nil {
		t.Fatal(err)
	}
	if counts, _ = s.take(); counts["GET /a 200"] != 1 {
		t.Errorf("without EdgeRefresher /a must be fetched: %v", counts)
	}
}

// followingGetter follows redirects itself (it is no RedirectDisabler), as
// a URLGetter of the caller's may: net/http then copies the validators to
// the next hop.
type followingGetter struct{ c *http.Client }

func (g followingGetter) Do(req *http.Request) (*http.Response, error) { return g.c.Do(req) }

// A 304 from where such a getter's redirect led is no answer about the page
// the validators belong to: the page is not taken as unchanged (nor its
// redirect's target marked retrieved with nothing stored).
func TestCrawlNotModifiedAfterGetterRedirect(t *testing.T) {
	s, g, l := retrievedPage(t, "/moved")
	log := &outcomeLog{m: map[string]crawler.Outcome{}}
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.1/32")),
			URLGetter:              followingGetter{c: s.Client()},
			Workers:                1,
			FetchTimeout:           5 * time.Second,
		},
		Graph:     g,
		OnOutcome: log.record,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Crawl(context.Background(), &sliceIterator{links: []*linkgraph.Link{l}}); err != nil {
		t.Fatal(err)
	}
	if _, asked := s.take(); asked["GET /a"] != `"a-v0"|` {
		t.Fatalf("the getter did not pass the validators on (asked %v): the test shows nothing", asked)
	}
	if o := log.m[l.URL]; o.Unchanged || o.Crawled() {
		t.Errorf("outcome %+v: a 304 of the redirect's target taken for the page's", o)
	}
	if found, _ := g.FindLink(l.ID); !found.RetrievedAt.Equal(l.RetrievedAt) {
		t.Errorf("the page was marked retrieved: %+v", found)
	}
	it, _ := g.Links(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	defer it.Close()
	for it.Next() {
		if got := it.Link(); got.URL == s.URL+"/a" {
			t.Errorf("the redirect's target was stored: %+v", got)
		}
	}
}

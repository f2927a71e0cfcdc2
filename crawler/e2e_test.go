package crawler_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/linkgraph"
	graphmem "github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/pipeline"
	indexmem "github.com/linksrus/linksrus/textindex/memory"
)

// site is a small web site with one page of each kind the crawler must
// handle; version 2 changes the home page's links.
type site struct {
	*httptest.Server
	version atomic.Int32
}

func newSite(t *testing.T) *site {
	s := &site{}
	s.version.Store(1)
	mux := http.NewServeMux()
	page := func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, body)
		})
	}
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if s.version.Load() == 1 {
			_, _ = io.WriteString(w, `<html><head><title>Home</title></head><body>
				<p>Welcome &amp; enjoy</p>
				<a href="/a">A</a> <a href="b">B</a> <a href="/ads" rel="sponsored nofollow">ad</a>
				<a href="/secret" rel=nofollow>s</a> <a href="/photo.jpg">img</a> <a href="http://10.1.2.3/x">lan</a> <a href="http://[::1]/y">lo6</a>
				<a href="mailto:me@example.com">mail</a> <a href="/a#again">A again</a>
				<script>document.write('<a href="/script">')</script></body></html>`)
			return
		}
		_, _ = io.WriteString(w, `<title>Home v2</title><a href="/b">B</a><a href="/new">new</a>`)
	})
	page("/a", `<title>Page A</title><p>alpha text</p><a href="/">home</a>`)
	page("/b", `<title>Page B</title><meta name="robots" content="noindex"><p>beta</p>`)
	page("/ads", `<title>Ads</title><meta name="robots" content="nofollow"><a href="/a">a</a>`)
	mux.HandleFunc("/secret", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusForbidden) })
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "<a href=/nope>not html</a>")
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/a", http.StatusMovedPermanently) })
	page("/new", `<title>New</title>`)
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

type outcomeLog struct {
	mu sync.Mutex
	m  map[string]crawler.Outcome
}

func (l *outcomeLog) record(o crawler.Outcome) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, dup := l.m[o.URL]; dup {
		panic("outcome reported twice for " + o.URL)
	}
	l.m[o.URL] = o
}

func newCrawler(t *testing.T, g crawler.Graph, ix crawler.Indexer, log *outcomeLog, extra ...pipeline.Processor) *crawler.Crawler {
	t.Helper()
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.1/32")),
			Workers:                4,
			FetchTimeout:           5 * time.Second,
		},
		Graph:      g,
		Index:      ix,
		Processors: extra,
		OnOutcome:  log.record,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func linksToCrawl(t *testing.T, g *graphmem.Graph) linkgraph.LinkIterator {
	t.Helper()
	it, err := g.Links(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = it.Close() })
	return it
}

func edgesOf(t *testing.T, g *graphmem.Graph, src uuid.UUID) []string {
	t.Helper()
	it, err := g.Edges(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var dsts []string
	for it.Next() {
		if e := it.Edge(); e.Src == src {
			l, err := g.FindLink(e.Dst)
			if err != nil {
				t.Fatal(err)
			}
			dsts = append(dsts, l.URL)
		}
	}
	sort.Strings(dsts)
	return dsts
}

func TestCrawlEndToEnd(t *testing.T) {
	s := newSite(t)
	g, ix := graphmem.New(), indexmem.New()
	defer g.Close()
	defer ix.Close()
	seeds := []string{"/", "/secret", "/plain", "/moved", "/photo.PNG?size=2", "/missing"}
	ids := map[string]uuid.UUID{}
	for _, path := range seeds {
		l := &linkgraph.Link{URL: s.URL + path}
		if err := g.UpsertLink(l); err != nil {
			t.Fatal(err)
		}
		ids[path] = l.ID
	}
	var extraSeen atomic.Int32
	extra := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		if p.(*crawler.Payload).Title == "" {
			return nil, errors.New("extra processor got a page without its text")
		}
		// The stores need no body, a processor may.
		if !strings.Contains(string(p.(*crawler.Payload).Body), "<title>") {
			return nil, errors.New("extra processor got a page without its body")
		}
		extraSeen.Add(1)
		return p, nil
	})
	log := &outcomeLog{m: map[string]crawler.Outcome{}}

	n, err := newCrawler(t, g, ix, log, extra).Crawl(context.Background(), linksToCrawl(t, g))
	if err != nil {
		t.Fatal(err)
	}
	// "/" and "/moved" (landing on /a) are crawled; the rest are not pages.
	if n != 2 || extraSeen.Load() != 2 {
		t.Fatalf("crawled %d pages, extra processor saw %d; want 2 and 2", n, extraSeen.Load())
	}

	want := map[string]crawler.Reason{
		"/": crawler.ReasonCrawled, "/secret": crawler.ReasonHTTPStatus, "/plain": crawler.ReasonContentType,
		"/moved": crawler.ReasonCrawled, "/photo.PNG?size=2": crawler.ReasonExtension, "/missing": crawler.ReasonHTTPStatus,
	}
	if len(log.m) != len(want) {
		t.Fatalf("got %d outcomes, want %d: %v", len(log.m), len(want), log.m)
	}
	for path, reason := range want {
		o := log.m[s.URL+path]
		if o.Reason != reason || o.LinkID != ids[path] {
			t.Errorf("%s: reason %v (err %v), want %v", path, o.Reason, o.Err, reason)
		}
	}
	home := log.m[s.URL+"/"]
	if home.StatusCode != 200 || home.Links != 2 || home.NoFollowLinks != 2 || home.Bytes == 0 || home.Duration <= 0 ||
		home.ContentType != "text/html; charset=utf-8" {
		t.Errorf("home outcome = %+v", home)
	}
	if moved := log.m[s.URL+"/moved"]; moved.FinalURL != s.URL+"/a" {
		t.Errorf("moved FinalURL = %q", moved.FinalURL)
	}

	// Graph: the home page's followed links have edges, no-follow ones are
	// known links without edges, dropped ones are absent.
	if got, want := edgesOf(t, g, ids["/"]), []string{s.URL + "/a", s.URL + "/b"}; !slices.Equal(got, want) {
		t.Errorf("edges from / = %q, want %q", got, want)
	}
	it := linksToCrawl(t, g)
	var urls []string
	for it.Next() {
		urls = append(urls, it.Link().URL)
	}
	for _, u := range []string{"/a", "/b", "/ads", "/secret"} {
		if !slices.Contains(urls, s.URL+u) {
			t.Errorf("link %s missing from graph", u)
		}
	}
	for _, u := range []string{s.URL + "/photo.jpg", "http://10.1.2.3/x", "http://[::1]/y", s.URL + "/script", s.URL + "/nope"} {
		if slices.Contains(urls, u) {
			t.Errorf("link %s must not be in the graph", u)
		}
	}
	if l, _ := g.FindLink(ids["/"]); l.RetrievedAt.IsZero() {
		t.Error("home page RetrievedAt not refreshed")
	}

	// Index: the home page with its title and visible text.
	doc, err := ix.FindByID(ids["/"])
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Home" || doc.Content != "Welcome & enjoy A B ad s img lan lo6 mail A again" {
		t.Errorf("indexed %q / %q", doc.Title, doc.Content)
	}

	// Second crawl of the home page after it changed: stale edges go.
	s.version.Store(2)
	clear(log.m)
	n, err = newCrawler(t, g, ix, log).Crawl(context.Background(), &sliceIterator{links: []*linkgraph.Link{{ID: ids["/"], URL: s.URL + "/"}}})
	if err != nil || n != 1 {
		t.Fatalf("recrawl = %d, %v", n, err)
	}
	if got, want := edgesOf(t, g, ids["/"]), []string{s.URL + "/b", s.URL + "/new"}; !slices.Equal(got, want) {
		t.Errorf("edges from / after recrawl = %q, want %q", got, want)
	}
	if doc, _ := ix.FindByID(ids["/"]); doc.Title != "Home v2" {
		t.Errorf("reindexed title = %q", doc.Title)
	}
}

// The crawled pages of /b (noindex) are in the graph but not in the index.
func TestCrawlHonoursNoIndex(t *testing.T) {
	s := newSite(t)
	g, ix := graphmem.New(), indexmem.New()
	defer g.Close()
	defer ix.Close()
	b := &linkgraph.Link{URL: s.URL + "/b"}
	if err := g.UpsertLink(b); err != nil {
		t.Fatal(err)
	}
	log := &outcomeLog{m: map[string]crawler.Outcome{}}
	if n, err := newCrawler(t, g, ix, log).Crawl(context.Background(), linksToCrawl(t, g)); n != 1 || err != nil {
		t.Fatalf("Crawl = %d, %v", n, err)
	}
	if _, err := ix.FindByID(b.ID); err == nil {
		t.Fatal("noindex page was indexed")
	}
	if !log.m[s.URL+"/b"].NoIndex {
		t.Fatal("outcome does not say noindex")
	}
}

// nameBlind is a PrivateNetworkDetector that finds no host private by name
// and has no dial-time check of its own.
type nameBlind struct{}

func (nameBlind) IsPrivate(string) (bool, error) { return false, nil }

// With a detector that lets every name through, the default URLGetter still
// refuses the loopback server when it dials it, whether named by address or
// by a name resolving to it.
func TestCrawlRefusesPrivateNetworkAtDialTime(t *testing.T) {
	s := newSite(t)
	_, port, _ := splitPort(s.URL)
	log := &outcomeLog{m: map[string]crawler.Outcome{}}
	c, err := crawler.NewCrawler(crawler.Config{FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: nameBlind{}}, OnOutcome: log.record})
	if err != nil {
		t.Fatal(err)
	}
	links := []*linkgraph.Link{{ID: uuid.New(), URL: s.URL + "/"}, {ID: uuid.New(), URL: "http://localhost:" + port + "/"}}
	n, err := c.Crawl(context.Background(), &sliceIterator{links: links})
	if err != nil || n != 0 {
		t.Fatalf("Crawl = %d, %v", n, err)
	}
	for _, l := range links {
		o := log.m[l.URL]
		if o.Reason != crawler.ReasonPrivateNetwork || !errors.Is(o.Err, privnet.ErrPrivateAddress) || o.StatusCode != 0 {
			t.Errorf("%s: %v, %v; want private-network", l.URL, o.Reason, o.Err)
		}
	}
}

// With the default detector and no allow-list, the loopback server is
// refused by name, before any request.
func TestCrawlRefusesPrivateHostByName(t *testing.T) {
	s := newSite(t)
	log := &outcomeLog{m: map[string]crawler.Outcome{}}
	c, err := crawler.NewCrawler(crawler.Config{OnOutcome: log.record})
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.Crawl(context.Background(), &sliceIterator{links: []*linkgraph.Link{{ID: uuid.New(), URL: s.URL + "/"}}})
	if err != nil || n != 0 {
		t.Fatalf("Crawl = %d, %v", n, err)
	}
	if o := log.m[s.URL+"/"]; o.Reason != crawler.ReasonPrivateNetwork || o.Duration != 0 {
		t.Fatalf("outcome = %+v", o)
	}
}

// Crawl may run concurrently, and each call counts only its own pages.
func TestCrawlConcurrentCalls(t *testing.T) {
	s := newSite(t)
	g := graphmem.New()
	defer g.Close()
	var mu sync.Mutex
	reported := map[string]int{}
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.1/32"))},
		Graph:        g,
		OnOutcome: func(o crawler.Outcome) {
			mu.Lock()
			reported[o.URL+" "+o.Reason.String()]++
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	counts := make([]int, 8)
	for i := range counts {
		wg.Go(func() {
			links := []*linkgraph.Link{{ID: uuid.New(), URL: s.URL + "/"}, {ID: uuid.New(), URL: s.URL + "/a"}, {ID: uuid.New(), URL: s.URL + "/secret"}}
			n, err := c.Crawl(context.Background(), &sliceIterator{links: links})
			if err != nil {
				t.Error(err)
			}
			counts[i] = n
		})
	}
	wg.Wait()
	for i, n := range counts {
		if n != 2 {
			t.Errorf("crawl %d counted %d pages, want 2", i, n)
		}
	}
	for _, k := range []string{s.URL + "/ crawled", s.URL + "/a crawled", s.URL + "/secret http-status"} {
		if reported[k] != len(counts) {
			t.Errorf("%q reported %d times, want %d", k, reported[k], len(counts))
		}
	}
}

// Cancelling a crawl stops it promptly, reports the pages it did not finish
// as cancelled, and leaves no goroutine behind (goleak checks in TestMain).
func TestCrawlCancel(t *testing.T) {
	release := make(chan struct{})
	var started atomic.Int32
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)

	var links []*linkgraph.Link
	for i := range 50 {
		links = append(links, &linkgraph.Link{ID: uuid.New(), URL: fmt.Sprintf("%s/p%d", slow.URL, i)})
	}
	log := &outcomeLog{m: map[string]crawler.Outcome{}}
	c := newCrawler(t, nil, nil, log)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for started.Load() < 4 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	n, err := c.Crawl(ctx, &sliceIterator{links: links})
	if !errors.Is(err, context.Canceled) || n != 0 {
		t.Fatalf("Crawl = %d, %v; want 0 and context.Canceled", n, err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("cancelled crawl took %v", d)
	}
	for url, o := range log.m {
		if o.Reason != crawler.ReasonCanceled {
			t.Errorf("%s: %v, want canceled", url, o.Reason)
		}
	}
	if len(log.m) == 0 {
		t.Error("no outcome reported for the cancelled pages")
	}
}

func TestCrawlIteratorError(t *testing.T) {
	boom := errors.New("iterator broke")
	c := newCrawler(t, nil, nil, &outcomeLog{m: map[string]crawler.Outcome{}})
	_, err := c.Crawl(context.Background(), &sliceIterator{err: boom})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the iterator's", err)
	}
	if _, err := c.Crawl(context.Background(), nil); !errors.Is(err, crawler.ErrInvalidConfig) {
		t.Fatalf("nil iterator: err = %v", err)
	}
}

func TestNewCrawlerInvalidConfig(t *testing.T) {
	_, err := crawler.NewCrawler(crawler.Config{FetchOptions: crawler.FetchOptions{Workers: -2}})
	if !errors.Is(err, crawler.ErrInvalidConfig) {
		t.Fatalf("err = %v, want ErrInvalidConfig", err)
	}
	if _, err := crawler.Stages(crawler.Config{Processors: []pipeline.Processor{nil}}); !errors.Is(err, crawler.ErrInvalidConfig) {
		t.Fatalf("Stages err = %v, want ErrInvalidConfig", err)
	}
}

// sliceIterator is a linkgraph.LinkIterator over a slice.
type sliceIterator struct {
	links []*linkgraph.Link
	i     int
	err   error
}

func (it *sliceIterator) Next() bool {
	if it.err != nil || it.i >= len(it.links) {
		return false
	}
	it.i++
	return true
}
func (it *sliceIterator) Error() error { return it.err }
func (it *sliceIterator) Close() error { return nil }
func (it *sliceIterator) Link() *linkgraph.Link {
	l := *it.links[it.i-1]
	return &l
}

func splitPort(u string) (string, string, error) {
	for i := len(u) - 1; i >= 0; i-- {
		if u[i] == ':' {
			return u[:i], u[i+1:], nil
		}
	}
	return u, "", errors.New("no port")
}

// A server that sends its headers and then trickles the body forever is cut
// off by FetchTimeout, body read included, and the crawl goes on.
func TestCrawlTimesOutTricklingBody(t *testing.T) {
	stop := make(chan struct{})
	trickle := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		for {
			if _, err := io.WriteString(w, "<p>"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-stop:
				return
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}))
	defer trickle.Close()
	defer close(stop)
	s := newSite(t)

	log := &outcomeLog{m: map[string]crawler.Outcome{}}
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.1/32")),
			FetchTimeout:           200 * time.Millisecond,
		},
		OnOutcome: log.record,
	})
	if err != nil {
		t.Fatal(err)
	}
	links := []*linkgraph.Link{{ID: uuid.New(), URL: trickle.URL + "/"}, {ID: uuid.New(), URL: s.URL + "/a"}}
	n, err := c.Crawl(context.Background(), &sliceIterator{links: links})
	if err != nil || n != 1 {
		t.Fatalf("Crawl = %d, %v; want the other page crawled", n, err)
	}
	o := log.m[trickle.URL+"/"]
	if o.Reason != crawler.ReasonFetchError || !errors.Is(o.Err, context.DeadlineExceeded) || o.Bytes == 0 || o.StatusCode != 200 {
		t.Fatalf("trickling page: %+v", o)
	}
}

package crawler_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
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

// memRecorder keeps what a crawl records, as the pages an import takes.
type memRecorder struct {
	mu    sync.Mutex
	pages []*crawler.FetchedPage
	cuts  map[string]crawler.BodyCut
	fail  error
}

func (r *memRecorder) Record(_ context.Context, x *crawler.Exchange) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	if x.Request == nil || x.Request.Header.Get("Accept-Encoding") != "gzip" {
		panic("request without its own Accept-Encoding: " + x.URL)
	}
	if r.cuts == nil {
		r.cuts = map[string]crawler.BodyCut{}
	}
	r.cuts[x.URL] = x.Cut
	r.pages = append(r.pages, &crawler.FetchedPage{
		URL: x.URL, StatusCode: x.Response.StatusCode, Header: x.Response.Header.Clone(),
		Body: bytes.Clone(x.Body), Truncated: x.Cut != crawler.BodyWhole, FetchedAt: x.FetchedAt,
	})
	return nil
}

func (r *memRecorder) page(url string) *crawler.FetchedPage {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.pages {
		if p.URL == url {
			return p
		}
	}
	return nil
}

// gzipped compresses b.
func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// bomb is a gzip stream of 1 GiB of zeros, about 1 MB long: 1,024 members
// of 1 MiB each (a gzip reader reads concatenated members as one stream).
var bomb = sync.OnceValue(func() []byte {
	member := gzipped(make([]byte, 1<<20))
	return bytes.Repeat(member, 1024)
})

// archiveSite serves pages for a recorded crawl: a gzipped page, a gzip
// bomb, an endless body, a redirect, a 404 and a text file.
func archiveSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter) { w.Header().Set("Content-Type", "text/html; charset=utf-8") }
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		html(w)
		_, _ = io.WriteString(w, `<title>Home</title><p>home page</p>
			<a href="/gz">gz</a> <a href="/bomb">bomb</a> <a href="/endless">endless</a>
			<a href="/moved">moved</a> <a href="/missing">missing</a> <a href="/plain">plain</a>`)
	})
	mux.HandleFunc("/gz", func(w http.ResponseWriter, r *http.Request) {
		html(w)
		body := []byte(`<title>Zipped</title><p>squeezed words</p><a href="/">home</a>`)
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			body = gzipped(body)
		}
		_, _ = w.Write(body)
	})
	mux.HandleFunc("/bomb", func(w http.ResponseWriter, r *http.Request) {
		html(w)
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(bomb())
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		html(w)
		chunk := bytes.Repeat([]byte("<p>more</p>"), 1000)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/target", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/target", func(w http.ResponseWriter, r *http.Request) {
		html(w)
		_, _ = io.WriteString(w, `<title>Target</title><p>landed here</p><a href="/gz">gz</a>`)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "plain text")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

const recordMaxBody = 2 << 20 // above the bomb's 1 MB, far below its 1 GiB

func recordingCrawler(t *testing.T, g crawler.Graph, ix crawler.Indexer, rec crawler.Recorder, log *outcomeLog) *crawler.Crawler {
	t.Helper()
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.1/32")),
			Workers:                4,
			FetchTimeout:           10 * time.Second,
			MaxBodyBytes:           recordMaxBody,
			Recorder:               rec,
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

// crawlAll crawls g until every link has been tried once.
func crawlAll(t *testing.T, c *crawler.Crawler, g *graphmem.Graph) {
	t.Helper()
	tried := map[string]bool{}
	for {
		all := linksToCrawl(t, g)
		var todo []*linkgraph.Link
		for all.Next() {
			if l := all.Link(); !tried[l.URL] && l.RetrievedAt.IsZero() {
				tried[l.URL] = true
				todo = append(todo, l)
			}
		}
		if len(todo) == 0 {
			return
		}
		if _, err := c.Crawl(context.Background(), &sliceIterator{links: todo}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRecorderGetsResponsesAsSent(t *testing.T) {
	srv := archiveSite(t)
	g := graphmem.New()
	if err := g.UpsertLink(&linkgraph.Link{URL: srv.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	rec := &memRecorder{}
	log := &outcomeLog{m: map[string]crawler.Outcome{}}
	crawlAll(t, recordingCrawler(t, g, nil, rec, log), g)

	want := map[string]struct {
		reason crawler.Reason
		cut    crawler.BodyCut
	}{
		"/":        {crawler.ReasonCrawled, crawler.BodyWhole},
		"/gz":      {crawler.ReasonCrawled, crawler.BodyWhole},
		"/bomb":    {crawler.ReasonTooLarge, crawler.BodyWhole}, // whole as sent; too large decoded
		"/endless": {crawler.ReasonTooLarge, crawler.BodyTruncated},
		"/moved":   {crawler.ReasonCrawled, crawler.BodySkipped},
		"/target":  {crawler.ReasonCrawled, crawler.BodyWhole},
		"/missing": {crawler.ReasonHTTPStatus, crawler.BodySkipped},
		"/plain":   {crawler.ReasonContentType, crawler.BodySkipped},
	}
	for path, w := range want {
		u := srv.URL + path
		if cut, ok := rec.cuts[u]; !ok || cut != w.cut {
			t.Errorf("%s: recorded %v (cut %d), want cut %d", path, ok, cut, w.cut)
		}
		if o, ok := log.m[u]; ok && o.Reason != w.reason {
			t.Errorf("%s: %v (%v), want %v", path, o.Reason, o.Err, w.reason)
		}
		if p := rec.page(u); p != nil && int64(len(p.Body)) > recordMaxBody {
			t.Errorf("%s: recorded %d bytes, more than the limit", path, len(p.Body))
		}
	}
	if len(rec.pages) != len(want) {
		t.Errorf("recorded %d responses, want %d", len(rec.pages), len(want))
	}
	gz := rec.page(srv.URL + "/gz")
	if gz == nil || gz.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(gz.Body[:2], []byte{0x1f, 0x8b}) {
		t.Fatalf("/gz not recorded gzipped: %+v", gz)
	}
	if o := log.m[srv.URL+"/gz"]; o.Links != 1 {
		t.Errorf("/gz parsed with %d links, want 1 (decoded for parsing)", o.Links)
	}
}

func TestRecorderErrorStopsCrawl(t *testing.T) {
	srv := archiveSite(t)
	g := graphmem.New()
	if err := g.UpsertLink(&linkgraph.Link{URL: srv.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	log := &outcomeLog{m: map[string]crawler.Outcome{}}
	_, err := recordingCrawler(t, g, nil, &memRecorder{fail: boom}, log).Crawl(context.Background(), linksToCrawl(t, g))
	if !errors.Is(err, boom) {
		t.Fatalf("crawl error %v, want %v", err, boom)
	}
}

// Importing what a crawl recorded into fresh stores gives the same graph
// (redirects as aliases) and the same index.
func TestImportRebuildsStores(t *testing.T) {
	srv := archiveSite(t)
	g1, ix1 := graphmem.New(), indexmem.New()
	if err := g1.UpsertLink(&linkgraph.Link{URL: srv.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	rec := &memRecorder{}
	crawlAll(t, recordingCrawler(t, g1, ix1, rec, &outcomeLog{m: map[string]crawler.Outcome{}}), g1)
	srv.Close() // the import must not need it

	g2, ix2 := graphmem.New(), indexmem.New()
	log := &outcomeLog{m: map[string]crawler.Outcome{}}
	c := recordingCrawler(t, g2, ix2, nil, log)
	n, err := c.Import(context.Background(), func(yield func(*crawler.FetchedPage, error) bool) {
		for _, p := range rec.pages {
			if !yield(p, nil) {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 { // /, /gz and /moved (stored as /target)
		t.Errorf("imported %d pages, want 3", n)
	}
	if got, want := graphSummary(t, g2), graphSummary(t, g1); got != want {
		t.Errorf("imported graph\n%s\nwant\n%s", got, want)
	}
	for _, q := range []string{"squeezed", "landed", "home"} {
		if got, want := searchURLs(t, ix2, q), searchURLs(t, ix1, q); got != want {
			t.Errorf("search %q: imported %s, crawled %s", q, got, want)
		}
	}
	if o := log.m[srv.URL+"/bomb"]; o.Reason != crawler.ReasonTooLarge {
		t.Errorf("/bomb imported as %v, want too-large", o.Reason)
	}
	if o := log.m[srv.URL+"/moved"]; o.Reason != crawler.ReasonCrawled || o.FinalURL != srv.URL+"/target" {
		t.Errorf("/moved imported as %+v, want crawled at /target", o)
	}
}

func TestImportIteratorError(t *testing.T) {
	c := recordingCrawler(t, graphmem.New(), nil, nil, &outcomeLog{m: map[string]crawler.Outcome{}})
	bad := errors.New("bad archive")
	_, err := c.Import(context.Background(), func(yield func(*crawler.FetchedPage, error) bool) { yield(nil, bad) })
	if !errors.Is(err, bad) {
		t.Fatalf("got %v, want %v", err, bad)
	}
}

// graphSummary lists a graph's links (URL and whether retrieved) and edges
// (source and destination URLs), sorted: what two graphs built from the
// same pages share, whatever their IDs.
func graphSummary(t *testing.T, g *graphmem.Graph) string {
	t.Helper()
	links, err := g.Links(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer links.Close()
	var lines []string
	for links.Next() {
		l := links.Link()
		lines = append(lines, fmt.Sprintf("link %s retrieved=%v", l.URL, !l.RetrievedAt.IsZero()))
	}
	edges, err := g.Edges(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer edges.Close()
	for edges.Next() {
		e := edges.Edge()
		src, err1 := g.FindLink(e.Src)
		dst, err2 := g.FindLink(e.Dst)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, "edge "+src.URL+" -> "+dst.URL)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// searchURLs returns the URLs a search finds, sorted.
func searchURLs(t *testing.T, ix *indexmem.Index, q string) string {
	t.Helper()
	it, err := ix.Search(textindex.Query{Type: textindex.QueryTypeSearch, Expression: q})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var urls []string
	for it.Next() {
		urls = append(urls, it.Document().URL)
	}
	slices.Sort(urls)
	return strings.Join(urls, " ")
}

// An archive holds the crawl's own requests too: a robots.txt is never
// imported as a page, even one served as HTML; the pages keep their
// validators.
func TestImportSkipsRobotsTxt(t *testing.T) {
	g := graphmem.New()
	c := recordingCrawler(t, g, indexmem.New(), nil, &outcomeLog{m: map[string]crawler.Outcome{}})
	html := http.Header{"Content-Type": {"text/html"}}
	pages := []*crawler.FetchedPage{
		{URL: "http://site.example/robots.txt", StatusCode: 200, Header: html, Body: []byte("<p>User-agent: *</p>"), FetchedAt: time.Now()},
		{URL: "http://site.example/", StatusCode: 200, Header: http.Header{"Content-Type": {"text/html"}, "Etag": {`"h1"`}},
			Body: []byte("<title>Home</title><p>home page</p>"), FetchedAt: time.Now()},
	}
	n, err := c.Import(context.Background(), func(yield func(*crawler.FetchedPage, error) bool) {
		for _, p := range pages {
			if !yield(p, nil) {
				return
			}
		}
	})
	if err != nil || n != 1 {
		t.Fatalf("imported %d pages (%v), want 1", n, err)
	}
	if strings.Contains(graphSummary(t, g), "robots.txt") {
		t.Errorf("robots.txt imported as a page:\n%s", graphSummary(t, g))
	}
	// The archived validators are kept, for the first recrawl.
	l := &linkgraph.Link{URL: "http://site.example/"}
	if err := g.UpsertLink(l); err != nil || l.ETag != `"h1"` || l.RetrievedAt.IsZero() {
		t.Errorf("imported home page stored as %+v (%v), want retrieved with its ETag", l, err)
	}
}

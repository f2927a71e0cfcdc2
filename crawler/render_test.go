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

// fakeRenderer renders by a table: the document for each page URL, or an
// error for one it has none for. It records the bodies it was given.
type fakeRenderer struct {
	mu     sync.Mutex
	pages  map[string]*crawler.Rendered
	bodies map[string]string
}

func (f *fakeRenderer) Render(_ context.Context, pageURL string, body []byte) (*crawler.Rendered, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bodies == nil {
		f.bodies = make(map[string]string)
	}
	f.bodies[pageURL] = string(body)
	r, ok := f.pages[pageURL]
	if !ok {
		return nil, errors.New("the page crashed")
	}
	return r, nil
}

func (f *fakeRenderer) rendered() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for u := range f.bodies {
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}

// servePages serves each path's HTML and counts the requests.
func servePages(t *testing.T, pages map[string]string) (*httptest.Server, func(path string) int) {
	t.Helper()
	var mu sync.Mutex
	hits := make(map[string]int)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s, func(path string) int {
		mu.Lock()
		defer mu.Unlock()
		return hits[path]
	}
}

// renderCrawl crawls urls once with r in mode, into the stores if not nil.
func renderCrawl(t *testing.T, r crawler.Renderer, mode crawler.RenderMode, g *graphmem.Graph, ix *indexmem.Index, urls ...string) map[string]crawler.Outcome {
	t.Helper()
	log := &outcomeLog{m: make(map[string]crawler.Outcome)}
	cfg := crawler.Config{
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.1/32")),
			Workers:                1, // one page at a time: the auto mode's decisions in order
			FetchTimeout:           5 * time.Second,
		},
		Renderer:  r,
		Render:    mode,
		OnOutcome: log.record,
	}
	if g != nil {
		cfg.Graph = g
	}
	if ix != nil {
		cfg.Index = ix
	}
	c, err := crawler.NewCrawler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var links []*linkgraph.Link
	for _, u := range urls {
		l := &linkgraph.Link{ID: uuid.New(), URL: u}
		if g != nil {
			if err := g.UpsertLink(l); err != nil {
				t.Fatal(err)
			}
		}
		links = append(links, l)
	}
	if _, err := c.Crawl(t.Context(), &sliceIterator{links: links}); err != nil {
		t.Fatal(err)
	}
	return log.m
}

const shell = `<!DOCTYPE html><title>Shell</title><script src="/app.js"></script><div id="app"></div><noscript>Please enable JavaScript.</noscript>`

// TestCrawlRendersPages: with RenderAlways, an HTML page's links and text
// are the rendered document's, with the URLs it moved to as links; the
// renderer gets the body already fetched (the page is requested once);
// a failed render leaves the page crawled as served, its Outcome saying
// why; what is not an HTML page (an error status) is not rendered.
func TestCrawlRendersPages(t *testing.T) {
	s, hits := servePages(t, map[string]string{
		"/":      shell,
		"/fails": `<title>Static</title><p>served words</p><a href="/static-link">s</a><script></script>`,
	})
	r := &fakeRenderer{pages: map[string]*crawler.Rendered{
		s.URL + "/": {
			HTML:    []byte(`<html><head><title>Quokka docs</title></head><body><p>rendered marsupial text</p><a href="` + s.URL + `/docs/intro">Intro</a></body></html>`),
			Moved:   []string{s.URL + "/docs/pushed?a=1&b=2"},
			Settled: true, Fetched: 3, Refused: 2,
		},
	}}
	g, ix := graphmem.New(), indexmem.New()
	outs := renderCrawl(t, r, crawler.RenderAlways, g, ix, s.URL+"/", s.URL+"/fails", s.URL+"/missing")

	home := outs[s.URL+"/"]
	if !home.Crawled() || home.Render != (crawler.RenderReport{Rendered: true, Settled: true, Fetched: 3, Refused: 2}) || home.Links != 2 {
		t.Errorf("home: %+v, want rendered with 2 links", home)
	}
	if got := r.bodies[s.URL+"/"]; got != shell {
		t.Errorf("renderer given %q, want the body fetched", got)
	}
	if n := hits("/"); n != 1 {
		t.Errorf("home requested %d times, want once", n)
	}
	want := []string{s.URL + "/docs/intro", s.URL + "/docs/pushed?a=1&b=2"}
	if got := edgesOf(t, g, home.LinkID); !slices.Equal(got, want) {
		t.Errorf("home's edges %v, want %v", got, want)
	}
	found := search(t, ix, "marsupial")
	if len(found) != 1 || found[0] != home.LinkID {
		t.Errorf("search for the rendered text found %v, want the home page", found)
	}

	fails := outs[s.URL+"/fails"]
	if !fails.Crawled() || fails.Render.Rendered || fails.Render.Err == nil || !strings.Contains(fails.Render.Err.Error(), "crashed") || fails.Links != 1 {
		t.Errorf("failed render: %+v, want crawled as served with the render's error", fails)
	}
	if len(search(t, ix, "served")) != 1 {
		t.Error("the page whose render failed is not indexed as served")
	}
	if got := r.rendered(); !slices.Equal(got, []string{s.URL + "/", s.URL + "/fails"}) {
		t.Errorf("rendered %v, want the two HTML pages only", got)
	}
}

func search(t *testing.T, ix *indexmem.Index, q string) []uuid.UUID {
	t.Helper()
	it, err := ix.Search(textindex.Query{Type: textindex.QueryTypeMatch, Expression: q})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var ids []uuid.UUID
	for it.Next() {
		ids = append(ids, it.Document().LinkID)
	}
	return ids
}

// TestCrawlRendersWhatNeedsIt: with RenderAuto, a page without scripts is
// never rendered, a shell always is, and a host's other scripted pages
// by the yield of its renders: after the first three, every one on a host
// whose renders find new links; on a host whose renders find nothing the
// HTML did not hold, only its 8th scripted page, to measure it again.
func TestCrawlRendersWhatNeedsIt(t *testing.T) {
	const text = `<p>Plenty of text served with the page, long enough that it is not taken for a shell: ` +
		`the quick brown fox jumps over the lazy dog, again and again, until the paragraph is well over ` +
		`two hundred and fifty six bytes of visible text, which is what a shell is not. ` +
		`And a second sentence, to be sure of it: a shell has next to no text of its own.</p>`
	pages := map[string]string{"/static": `<title>Static</title>` + text + `<a href="/a">a</a>`}
	for i := range 8 {
		pages[fmt.Sprintf("/scripted/%d", i)] = `<title>Scripted</title><script src="/menu.js"></script>` + text
	}
	yielding, _ := servePages(t, pages)
	barrenPages := map[string]string{"/shell": shell}
	for i := range 8 {
		barrenPages[fmt.Sprintf("/scripted/%d", i)] = pages["/scripted/0"]
	}
	barren, _ := servePages(t, barrenPages)

	r := &fakeRenderer{pages: map[string]*crawler.Rendered{}}
	var urls []string
	for i := range 8 {
		u := fmt.Sprintf("%s/scripted/%d", yielding.URL, i)
		r.pages[u] = &crawler.Rendered{HTML: []byte(pages["/scripted/0"] + fmt.Sprintf(`<a href="/menu/%d">m</a>`, i))}
		urls = append(urls, u)
		u = fmt.Sprintf("%s/scripted/%d", barren.URL, i)
		r.pages[u] = &crawler.Rendered{HTML: []byte(pages["/scripted/0"] + `<p>Copy</p>`)}
		urls = append(urls, u)
	}
	r.pages[barren.URL+"/shell"] = &crawler.Rendered{HTML: []byte(`<p>filled</p>`)}
	urls = append(urls, yielding.URL+"/static", barren.URL+"/shell")
	outs := renderCrawl(t, r, crawler.RenderAuto, nil, nil, urls...)

	count := func(prefix string) int {
		n := 0
		for u, o := range outs {
			if strings.HasPrefix(u, prefix) && o.Render.Rendered {
				n++
			}
		}
		return n
	}
	if n := count(yielding.URL + "/scripted/"); n != 8 {
		t.Errorf("%d of the yielding host's 8 scripted pages rendered, want all", n)
	}
	if n := count(barren.URL + "/scripted/"); n != 4 {
		t.Errorf("%d of the barren host's 8 scripted pages rendered, want the 3 probes and the 8th, measuring it again", n)
	}
	if outs[yielding.URL+"/static"].Render.Rendered {
		t.Error("a page without scripts was rendered")
	}
	if o := outs[barren.URL+"/shell"]; o.Render.Rendered {
		// The host's renders never yielded: its shell is crawled as served.
		t.Errorf("the barren host's shell was rendered after its probes found nothing: %+v", o)
	}
}

// A render mode without a Renderer, or an unknown mode, is a config error.
func TestRenderConfig(t *testing.T) {
	for _, cfg := range []crawler.Config{
		{Render: crawler.RenderAuto},
		{Render: crawler.RenderMode(9), Renderer: &fakeRenderer{}},
	} {
		if _, err := crawler.NewCrawler(cfg); !errors.Is(err, crawler.ErrInvalidConfig) {
			t.Errorf("%+v: err %v, want ErrInvalidConfig", cfg.Render, err)
		}
	}
	for _, name := range []string{"never", "auto", "always"} {
		m, err := crawler.ParseRenderMode(name)
		if err != nil || m.String() != name {
			t.Errorf("ParseRenderMode(%q) = %v, %v", name, m, err)
		}
	}
	if _, err := crawler.ParseRenderMode("sometimes"); err == nil {
		t.Error("ParseRenderMode accepted sometimes")
	}
}

package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/crawler/render"
	"github.com/linksrus/linksrus/internal/chromium/chromiumtest"
	"github.com/linksrus/linksrus/internal/jsweb"
	"github.com/linksrus/linksrus/internal/pgtest"
	"github.com/linksrus/linksrus/linkgraph/memory"
)

// TestRenderedPagesRequestsKeepTheRules: the requests the browser makes
// while it renders a page (scripts, a script's fetch calls, on the page's
// host and on another) are the run's requests: each host's limit and
// delay hold for them (server-side timing, with the crawler's stamps),
// robots.txt is fetched for the other host and what it disallows is not
// requested, and a script's POST is refused; the page renders without
// what was refused and says so in its outcome.
func TestRenderedPagesRequestsKeepTheRules(t *testing.T) {
	chromiumtest.ForTest(t)
	const delay = 150 * time.Millisecond
	log := &requestLog{}
	assets := startHost(t, 7, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		case strings.HasPrefix(r.URL.Path, "/api/"):
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"ok":true}`)
		default:
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, "var loaded = true;")
		}
	}))
	var b strings.Builder
	for i := range 4 {
		fmt.Fprintf(&b, `<script src="http://%s/js/%d.js"></script><script src="/own/%d.js"></script>`, assets.Host, i, i)
	}
	fmt.Fprintf(&b, `<script src="http://%[1]s/private/secret.js"></script><img src="http://%[1]s/photo.jpg">`, assets.Host)
	fmt.Fprintf(&b, `<script>
for (let i = 0; i < 3; i++) fetch('http://%[1]s/api/' + i).catch(() => {});
fetch('http://%[1]s/api/post', {method: 'POST', body: 'x'}).catch(() => {});
</script><p>A page with images</p>`, assets.Host)
	page := startHost(t, 6, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		case "/":
			htmlPage(w, b.String())
		default:
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, "var own = true;")
		}
	}))

	var mu sync.Mutex
	outcomes := map[string]crawler.Outcome{}
	e, err := engine.New(engine.Options{
		Graph: memory.New(),
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: loopback(),
			DecorateRequest: func(r *http.Request) error {
				stampSent(r)
				return nil
			},
		},
		PerHost:        1,
		Delay:          delay,
		IgnoreSitemaps: true,
		Render:         crawler.RenderAlways,
		Rendering:      render.Options{Chromium: chromiumtest.ForTest(t)},
		OnOutcome: func(o crawler.Outcome) {
			mu.Lock()
			outcomes[o.URL] = o
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.Run(context.Background(), page.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	home := outcomes[page.URL+"/"]
	if sum.Pages != 1 || !home.Render.Rendered || home.Render.Refused != 2 {
		t.Fatalf("crawled %d pages; the page's render %+v, want rendered with 2 requests refused (robots.txt, POST)", sum.Pages, home.Render)
	}
	for _, h := range []*hostServer{page, assets} {
		log.checkPoliteness(t, h.Host, 1, delay)
	}
	for i := range 4 {
		if n := log.count(assets.Host, fmt.Sprintf("/js/%d.js", i)); n != 1 {
			t.Errorf("script %d on the other host requested %d times, want once", i, n)
		}
		if n := log.count(page.Host, fmt.Sprintf("/own/%d.js", i)); n != 1 {
			t.Errorf("script %d on the page's host requested %d times, want once", i, n)
		}
	}
	for _, path := range []string{"/api/0", "/api/1", "/api/2", "/robots.txt"} {
		if n := log.count(assets.Host, path); n != 1 {
			t.Errorf("%s on the other host requested %d times, want once", path, n)
		}
	}
	for _, path := range []string{"/private/secret.js", "/api/post", "/photo.jpg"} {
		if n := log.count(assets.Host, path); n != 0 {
			t.Errorf("%s requested %d times: robots.txt disallows it, it is not a read, or an image", path, n)
		}
	}
}

// TestSharedRenderFetchesOnlyLeasedHosts: in a shared crawl, what the
// browser asks of a host this process does not lease is not fetched (not
// even its robots.txt): the page renders without it, and its outcome
// counts it refused; its own host's script is fetched. With robots.txt
// ignored too: the lease, not robots.txt's fetch, refuses it.
func TestSharedRenderFetchesOnlyLeasedHosts(t *testing.T) {
	path := chromiumtest.ForTest(t)
	for _, ignoreRobots := range []bool{false, true} {
		t.Run(fmt.Sprintf("ignore-robots=%v", ignoreRobots), func(t *testing.T) {
			sharedRenderOnlyLeased(t, path, ignoreRobots)
		})
	}
}

func sharedRenderOnlyLeased(t *testing.T, path string, ignoreRobots bool) {
	dsn := pgtest.Database(t, "engine")
	log := &requestLog{}
	cdn := startHost(t, 9, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, "var cdn = true;")
	}))
	site := startHost(t, 8, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		case "/":
			htmlPage(w, fmt.Sprintf(`<p>Shared</p><script src="/own.js"></script><script src="http://%s/cdn.js"></script>`, cdn.Host))
		default:
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, "var own = true;")
		}
	}))
	var mu sync.Mutex
	var home crawler.Outcome
	opts := sharedOptions(t, dsn, "only", nil, openShared(t, dsn))
	opts.AnyHost = false // the CDN's host has no page of the crawl: it is never leased
	opts.IgnoreSitemaps, opts.IgnoreRobots = true, ignoreRobots
	opts.Render, opts.Rendering = crawler.RenderAlways, render.Options{Chromium: path}
	opts.OnOutcome = func(o crawler.Outcome) {
		if o.URL == site.URL+"/" {
			mu.Lock()
			home = o
			mu.Unlock()
		}
	}
	e, err := engine.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(context.Background(), site.URL+"/"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !home.Crawled() || !home.Render.Rendered || home.Render.Refused != 1 || home.Render.Fetched != 1 {
		t.Errorf("the page: %v, render %+v; want rendered, its own script fetched, the CDN's refused", home.Reason, home.Render)
	}
	if n := len(log.of(cdn.Host)); n != 0 {
		t.Errorf("the host this process does not lease had %d requests", n)
	}
	if n := log.count(site.Host, "/own.js"); n != 1 {
		t.Errorf("the page's own script requested %d times, want once", n)
	}
}

// TestStopAbandonsRenders: Stop abandons the renders under way, where each
// would otherwise run out its budget (a page whose requests never stop):
// the page is stored as served, its outcome saying why it was not
// rendered.
func TestStopAbandonsRenders(t *testing.T) {
	path := chromiumtest.ForTest(t)
	s, err := jsweb.Start(jsweb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	outcomes := make(chan crawler.Outcome, 1)
	e, err := engine.New(engine.Options{
		Graph:          memory.New(),
		FetchOptions:   crawler.FetchOptions{PrivateNetworkDetector: loopback()},
		IgnoreSitemaps: true,
		Render:         crawler.RenderAlways,
		Rendering:      render.Options{Chromium: path, Timeout: 20 * time.Second},
		OnOutcome: func(o crawler.Outcome) {
			if strings.HasSuffix(o.URL, "/endless.html") {
				outcomes <- o
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	run, err := e.Start(t.Context(), s.URL()+"/endless.html")
	if err != nil {
		t.Fatal(err)
	}
	for s.Requests("/api/tick") == 0 { // the page is being rendered
		time.Sleep(10 * time.Millisecond)
	}
	run.Stop()
	if _, err := run.Wait(); err != nil {
		t.Fatal(err)
	}
	var o crawler.Outcome
	select {
	case o = <-outcomes:
	default:
		t.Fatal("no outcome for the page")
	}
	if !o.Crawled() || o.Render.Rendered || o.Render.Err == nil || !strings.Contains(o.Render.Err.Error(), "stopping") {
		t.Errorf("crawled %v, rendered %v, render error %v: want the page stored as served, its render abandoned", o.Crawled(), o.Render.Rendered, o.Render.Err)
	}
}

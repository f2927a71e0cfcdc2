package render_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler/render"
	"github.com/linksrus/linksrus/internal/chromium"
	"github.com/linksrus/linksrus/internal/chromium/chromiumtest"
	"github.com/linksrus/linksrus/internal/jsweb"
)

func newRenderer(t testing.TB, opts render.Options) *render.Renderer {
	t.Helper()
	opts.Chromium = chromiumtest.ForTest(t)
	r, err := render.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// onlyHost is a Fetcher that fetches what is on host and refuses the
// rest, recording what it refused: the crawl's rules, in small.
type onlyHost struct {
	host    string
	mu      sync.Mutex
	refused []string
}

func (o *onlyHost) Fetch(ctx context.Context, req *http.Request) (*render.Response, error) {
	if req.URL.Host != o.host {
		o.mu.Lock()
		o.refused = append(o.refused, req.URL.String())
		o.mu.Unlock()
		return nil, errors.New("refused")
	}
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	return &render.Response{StatusCode: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

// generatedSite serves internal/jsweb with n generated pages until the
// test ends, and returns it, a Fetcher of its host, and its shell page.
func generatedSite(t testing.TB, n int) (*jsweb.Server, *onlyHost, []byte) {
	t.Helper()
	s, err := jsweb.Start(jsweb.Options{Generated: n})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	host, _ := url.Parse(s.URL())
	return s, &onlyHost{host: host.Host}, get(t, s.URL()+"/gen/0")
}

func get(t testing.TB, u string) []byte {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRenderJavaScriptSite: rendered, the site's home page gives every
// link a person can follow from it (the menu from the API, the shadow
// root's, the one added on scroll, the route pushState set) and the text
// fetched after load; its page is not downloaded again, and its probes of
// a private address and of a disallowed host are refused by the Fetcher
// and reach neither.
func TestRenderJavaScriptSite(t *testing.T) {
	privateAddr, private := chromiumtest.CountConnections(t, "127.0.0.1")
	disallowedURL, disallowed, closeDisallowed, err := jsweb.Disallowing("127.0.0.2")
	if err != nil {
		t.Skip(err)
	}
	defer closeDisallowed()
	s, err := jsweb.Start(jsweb.Options{PrivateURL: "http://" + privateAddr + "/probe", DisallowedURL: disallowedURL + "/secret"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := newRenderer(t, render.Options{})
	body := get(t, s.URL()+"/")
	host, _ := url.Parse(s.URL())
	f := &onlyHost{host: host.Host}

	p, err := r.Render(t.Context(), s.URL()+"/", body, "text/html; charset=utf-8", f)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, l := range p.Links {
		if u, err := url.Parse(l); err == nil && u.Host == host.Host {
			paths = append(paths, u.Path)
		}
	}
	for _, want := range []string{"/", "/docs/intro", "/docs/install", "/docs/config", "/endless.html", "/hog.html", "/docs/shadow", "/docs/scrolled", "/docs/pushed"} {
		if !slices.Contains(paths, want) {
			t.Errorf("links %v, without %s", paths, want)
		}
	}
	if !strings.Contains(string(p.HTML), jsweb.LateWord("/")) {
		t.Errorf("rendered HTML lacks the text fetched after load (%s):\n%s", jsweb.LateWord("/"), p.HTML)
	}
	if !strings.Contains(string(p.HTML), `<a href="`+s.URL()+`/docs/shadow">Inside the shadow root</a>`) {
		t.Errorf("rendered HTML lacks the shadow root's link, absolute, and its text:\n%s", p.HTML)
	}
	if !slices.Equal(p.Moved, []string{s.URL() + "/docs/pushed"}) {
		t.Errorf("moved to %v, want only /docs/pushed", p.Moved)
	}
	if !p.Settled || p.URL != s.URL()+"/docs/pushed" {
		t.Errorf("settled %v, URL %s", p.Settled, p.URL)
	}
	if n := s.Requests("/"); n != 1 {
		t.Errorf("the page was requested %d times, want once (by the test, not the browser)", n)
	}
	if s.Requests("/app.js") != 1 || s.Requests("/api/nav.json") != 1 {
		t.Errorf("script %d, API %d requests; want one each, through the Fetcher", s.Requests("/app.js"), s.Requests("/api/nav.json"))
	}
	time.Sleep(200 * time.Millisecond)
	if private.Load() != 0 || disallowed() != 0 {
		t.Errorf("connections to the private address %d, requests to the disallowed host %d; want none", private.Load(), disallowed())
	}
	f.mu.Lock()
	refused := slices.Clone(f.refused)
	f.mu.Unlock()
	if p.Refused < 2 || !slices.ContainsFunc(refused, func(u string) bool { return strings.Contains(u, privateAddr) }) ||
		!slices.ContainsFunc(refused, func(u string) bool { return strings.HasPrefix(u, disallowedURL) }) {
		t.Errorf("refused %d: %v", p.Refused, refused)
	}
}

// TestNothingLeavesTheBrowser: what the Fetch domain does not intercept
// (WebSocket, preconnect, DNS prefetch, a service worker, WebRTC's STUN
// over UDP) and what the Fetcher refuses
// (scripts' requests, images, frames) never reaches a listener: the
// browser can neither resolve nor connect by itself.
func TestNothingLeavesTheBrowser(t *testing.T) {
	addr, conns := chromiumtest.CountConnections(t, "127.0.0.1")
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	defer udp.Close()
	var packets atomic.Int32
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := udp.ReadFrom(buf); err != nil {
				return
			}
			packets.Add(1)
		}
	}()
	r := newRenderer(t, render.Options{Settle: 300 * time.Millisecond})
	page := `<!DOCTYPE html><html><head>
<link rel="preconnect" href="http://` + addr + `">
<link rel="dns-prefetch" href="http://` + addr + `">
<link rel="prefetch" href="http://` + addr + `/prefetch">
</head><body>
<img src="http://` + addr + `/img.png">
<iframe src="http://` + addr + `/frame"></iframe>
<script>
try { new WebSocket('ws://` + addr + `/ws'); } catch (e) {}
fetch('http://` + addr + `/fetch').catch(() => {});
navigator.sendBeacon && navigator.sendBeacon('http://` + addr + `/beacon', 'x');
try { new EventSource('http://` + addr + `/events'); } catch (e) {}
navigator.serviceWorker && navigator.serviceWorker.register('/sw.js').catch(() => {});
try {
	const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:` + udp.LocalAddr().String() + `'}]});
	pc.createDataChannel('probe');
	pc.createOffer().then((o) => pc.setLocalDescription(o)).catch(() => {});
} catch (e) {}
</script></body></html>`
	refuseAll := render.FetcherFunc(func(context.Context, *http.Request) (*render.Response, error) {
		return nil, errors.New("refused")
	})
	// The page is at the listener's origin: what it asks of its own
	// origin (the service worker's script) would reach it too.
	p, err := r.Render(t.Context(), "http://"+addr+"/page.html", []byte(page), "text/html", refuseAll)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if n := conns.Load(); n != 0 {
		t.Errorf("%d connections reached the listener; want none (refused %d)", n, p.Refused)
	}
	if n := packets.Load(); n != 0 {
		t.Errorf("%d UDP packets (WebRTC's STUN) reached the listener; want none", n)
	}
	if p.Refused < 2 || p.Unread < 1 {
		t.Errorf("refused %d requests, %d unread; want the frame and fetch refused at least, the image unread", p.Refused, p.Unread)
	}
}

// TestUnreadNotFetched: what a crawl reads nothing from (images, fonts,
// video, the site's icon) is failed without being handed to the Fetcher;
// scripts, styles and the page's API calls are.
func TestUnreadNotFetched(t *testing.T) {
	r := newRenderer(t, render.Options{})
	page := `<!DOCTYPE html><html><head><link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="/site.css">
<style>@font-face { font-family: F; src: url(/font.woff2); } body { font-family: F; }</style>
</head><body><p>Text</p><img src="/photo.jpg"><video src="/clip.mp4" autoplay muted></video>
<script src="/app.js"></script><script>fetch('/api/data');</script></body></html>`
	var mu sync.Mutex
	var asked []string
	f := render.FetcherFunc(func(_ context.Context, req *http.Request) (*render.Response, error) {
		mu.Lock()
		asked = append(asked, req.URL.Path)
		mu.Unlock()
		return &render.Response{StatusCode: http.StatusOK, Body: []byte("/* */")}, nil
	})
	p, err := r.Render(t.Context(), "http://127.0.0.1:1/", []byte(page), "text/html", f)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(asked)
	if want := []string{"/api/data", "/app.js", "/site.css"}; !slices.Equal(asked, want) {
		t.Errorf("the Fetcher was asked for %v, want %v", asked, want)
	}
	if p.Unread < 3 {
		t.Errorf("%d requests unread, want the image, the video, the font and the icon", p.Unread)
	}
}

// TestRenderPageThatNeverSettles: a page whose timers and requests never
// stop is read when its budget is spent, not waited on for ever.
func TestRenderPageThatNeverSettles(t *testing.T) {
	s, err := jsweb.Start(jsweb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := newRenderer(t, render.Options{Timeout: 2 * time.Second})
	host, _ := url.Parse(s.URL())
	start := time.Now()
	p, err := r.Render(t.Context(), s.URL()+"/endless.html", get(t, s.URL()+"/endless.html"), "text/html", &onlyHost{host: host.Host})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("render took %v with a budget of 2s", took)
	}
	if p.Settled || !strings.Contains(string(p.HTML), "Endless page") {
		t.Errorf("settled %v; HTML %s", p.Settled, p.HTML)
	}
}

// TestRenderAfterCloseAndCancel: Render after Close fails with ErrClosed;
// a cancelled context ends a render with its error.
func TestRenderAfterCloseAndCancel(t *testing.T) {
	r := newRenderer(t, render.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	refuse := render.FetcherFunc(func(context.Context, *http.Request) (*render.Response, error) { return nil, errors.New("no") })
	if _, err := r.Render(ctx, "http://127.0.0.1:1/", []byte("<p>x"), "text/html", refuse); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := r.Render(t.Context(), "ftp://127.0.0.1/", nil, "text/html", refuse); err == nil {
		t.Error("an ftp URL rendered")
	}
	r.Close()
	if _, err := r.Render(t.Context(), "http://127.0.0.1:1/", []byte("<p>x"), "text/html", refuse); !errors.Is(err, render.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

// TestRenderPageThatEatsMemory: a page that allocates until it dies fails
// with ErrCrashed as it dies, and the renderer renders the next page as
// before.
func TestRenderPageThatEatsMemory(t *testing.T) {
	s, err := jsweb.Start(jsweb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := newRenderer(t, render.Options{Timeout: 5 * time.Second, MaxHeapMB: 128})
	host, _ := url.Parse(s.URL())
	f := &onlyHost{host: host.Host}
	start := time.Now()
	_, err = r.Render(t.Context(), s.URL()+"/hog.html", get(t, s.URL()+"/hog.html"), "text/html", f)
	if !errors.Is(err, render.ErrCrashed) {
		t.Errorf("a page that eats memory: %v, want ErrCrashed", err)
	}
	if took := time.Since(start); took > 8*time.Second {
		t.Errorf("the hog took %v with a budget of 5s", took)
	}
	p, err := r.Render(t.Context(), s.URL()+"/", get(t, s.URL()+"/"), "text/html", f)
	if err != nil || !strings.Contains(string(p.HTML), jsweb.LateWord("/")) {
		t.Fatalf("the next page: %v", err)
	}
}

// TestTabReusedCleanly: a tab renders page after page, and nothing of a
// page reaches the next: the endless page's timers stop with its render,
// and the home page's pushState is not the next page's link.
func TestTabReusedCleanly(t *testing.T) {
	s, err := jsweb.Start(jsweb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := newRenderer(t, render.Options{Tabs: 1, Timeout: 2 * time.Second})
	host, _ := url.Parse(s.URL())
	f := &onlyHost{host: host.Host}
	renderPage := func(route string) *render.Page {
		t.Helper()
		p, err := r.Render(t.Context(), s.URL()+route, get(t, s.URL()+route), "text/html; charset=utf-8", f)
		if err != nil {
			t.Fatalf("%s: %v", route, err)
		}
		return p
	}
	renderPage("/endless.html")
	// A request the Fetcher gave up on as the render ended may still
	// reach the server a moment later: count from when those are in.
	time.Sleep(300 * time.Millisecond)
	ticks := s.Requests("/api/tick")
	if ticks == 0 {
		t.Fatal("the endless page made no request while rendered")
	}
	if p := renderPage("/"); p.URL != s.URL()+"/docs/pushed" {
		t.Errorf("home rendered at %s", p.URL)
	}
	p := renderPage("/docs/intro")
	if p.URL != s.URL()+"/docs/intro" || slices.Contains(p.Links, s.URL()+"/docs/pushed") {
		t.Errorf("/docs/intro rendered at %s with links %v: the home page's move leaked", p.URL, p.Links)
	}
	if !strings.Contains(string(p.HTML), jsweb.LateWord("/docs/intro")) {
		t.Errorf("/docs/intro's text is missing")
	}
	if n := s.Requests("/api/tick"); n != ticks {
		t.Errorf("the endless page went on requesting after its render: %d requests, %d when it ended", n, ticks)
	}
}

// TestNewWithoutBrowser: with no browser named and none in PATH, New
// says so rather than starting nothing.
func TestNewWithoutBrowser(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	r, err := render.New(render.Options{})
	if err == nil {
		r.Close()
	}
	if !errors.Is(err, chromium.ErrNotFound) {
		t.Errorf("New without a browser: %v, want chromium.ErrNotFound", err)
	}
}

// TestNewUnderLongTempDir: the browser starts under a TMPDIR too long for
// the socket Chromium makes there (it failed with "Socket path too long").
func TestNewUnderLongTempDir(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 80))
	if err := os.MkdirAll(long, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", long)
	newRenderer(t, render.Options{})
}

// TestBrowserStartedAgainAfterDying: a browser killed between pages (a
// crash, the out-of-memory killer) is started again for the next page,
// which renders; a page under way when it died fails with ErrBrowserDied.
func TestBrowserStartedAgainAfterDying(t *testing.T) {
	tmp, err := os.MkdirTemp("/tmp", "lr-render")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	t.Setenv("TMPDIR", tmp) // where the browser's profile goes: how its process is found
	r := newRenderer(t, render.Options{})
	f := render.FetcherFunc(func(context.Context, *http.Request) (*render.Response, error) {
		return nil, errors.New("refused")
	})
	page := []byte(`<p>Text</p><a href="/next">next</a>`)
	if _, err := r.Render(t.Context(), "http://127.0.0.1:1/", page, "text/html", f); err != nil {
		t.Fatal(err)
	}
	pid := browserPID(t, tmp)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		p, err := r.Render(t.Context(), "http://127.0.0.1:1/", page, "text/html", f)
		if err == nil {
			if len(p.Links) != 1 {
				t.Errorf("links %v after the restart", p.Links)
			}
			break
		}
		if !errors.Is(err, render.ErrBrowserDied) || time.Now().After(deadline) {
			t.Fatalf("render after the browser was killed: %v", err)
		}
	}
	if n := r.Restarts(); n != 1 {
		t.Errorf("%d restarts, want 1", n)
	}
	if pid2 := browserPID(t, tmp); pid2 == pid {
		t.Errorf("the browser is still process %d", pid)
	}
}

// browserPID returns the process of the browser (not one of its helpers)
// whose command line names dir.
func browserPID(t *testing.T, dir string) int {
	t.Helper()
	for _, p := range chromiumtest.Processes(dir) {
		if p.Main() {
			return p.PID
		}
	}
	t.Fatalf("no browser process under %s", dir)
	return 0
}

// TestBrowserOverMemoryReplaced: a browser whose processes use more than
// MaxMemoryMB together is replaced by a new one for the next page, and
// ended.
func TestBrowserOverMemoryReplaced(t *testing.T) {
	tmp, err := os.MkdirTemp("/tmp", "lr-render")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	t.Setenv("TMPDIR", tmp)
	r := newRenderer(t, render.Options{MaxMemoryMB: 1}) // every browser is over it
	f := render.FetcherFunc(func(context.Context, *http.Request) (*render.Response, error) {
		return nil, errors.New("refused")
	})
	page := []byte(`<p>Text</p><a href="/next">next</a>`)
	render1 := func() {
		t.Helper()
		if p, err := r.Render(t.Context(), "http://127.0.0.1:1/", page, "text/html", f); err != nil || len(p.Links) != 1 {
			t.Fatalf("render: %v", err)
		}
	}
	render1()
	first := browserPID(t, tmp)
	// A browser's memory is measured after a page, aside, once it has run
	// a while: pages go on until it is found over the bound.
	for end := time.Now().Add(20 * time.Second); r.Restarts() == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the browser over the bound was not replaced")
		}
		render1()
	}
	// The replaced browser ends (the kernel's to reap: give it a moment).
	for end := time.Now().Add(5 * time.Second); chromiumtest.Alive(first); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", first))
			t.Fatalf("the replaced browser, process %d, is still running: %q", first, b)
		}
	}
	if second := browserPID(t, tmp); second == first {
		t.Errorf("the browser over the bound, process %d, still renders", first)
	}
}

// TestBrowserThatCannotStart: New does not start the browser (a crawl
// that renders nothing pays nothing for it); a browser that cannot start
// fails the first page, and every later one at once with the same error.
func TestBrowserThatCannotStart(t *testing.T) {
	if _, err := render.New(render.Options{Chromium: t.TempDir()}); err == nil {
		t.Error("New accepted a directory as the browser")
	}
	r, err := render.New(render.Options{Chromium: "/bin/false"})
	if err != nil {
		t.Skip(err)
	}
	defer r.Close()
	page := []byte(`<p>x</p>`)
	_, first := r.Render(t.Context(), "http://127.0.0.1:1/", page, "text/html", nil)
	start := time.Now()
	_, again := r.Render(t.Context(), "http://127.0.0.1:1/", page, "text/html", nil)
	if first == nil || again == nil || first.Error() != again.Error() {
		t.Errorf("renders with a browser that cannot start: %v, then %v", first, again)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the second render took %v: the start was tried again", d)
	}
}

// TestScrolledWhilePageGrows: a page that loads more each time it is
// scrolled to its end (infinite scrolling) is scrolled ScrollSteps times;
// one that does not grow is scrolled once.
func TestScrolledWhilePageGrows(t *testing.T) {
	r := newRenderer(t, render.Options{ScrollSteps: 3})
	page := []byte(`<div id="list" style="height: 3000px"><a href="/item/0">0</a></div><script>
let n = 0;
window.addEventListener('scroll', async () => {
	if (window.scrollY + window.innerHeight < document.body.scrollHeight - 100) return;
	const more = await (await fetch('/more?n=' + (++n))).json();
	const div = document.createElement('div');
	div.style.height = '3000px';
	div.innerHTML = '<a href="/item/' + more.n + '">' + more.n + '</a>';
	document.getElementById('list').append(div);
});
</script>`)
	var mu sync.Mutex
	loads := 0
	f := render.FetcherFunc(func(_ context.Context, req *http.Request) (*render.Response, error) {
		mu.Lock()
		loads++
		mu.Unlock()
		n := req.URL.Query().Get("n")
		return &render.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"n":` + n + `}`)}, nil
	})
	p, err := r.Render(t.Context(), "http://127.0.0.1:1/", page, "text/html", f)
	if err != nil {
		t.Fatal(err)
	}
	var items []string
	for _, l := range p.Links {
		if strings.Contains(l, "/item/") {
			items = append(items, l)
		}
	}
	if len(items) != 4 || loads != 3 {
		t.Errorf("items %v after %d loads, want 4 after 3 scrolls", items, loads)
	}
}

// TestNavigationNotFollowed: a page whose script sends it elsewhere
// (location.href) is read as it was, the other URL one of its links; the
// Fetcher is not asked for it.
func TestNavigationNotFollowed(t *testing.T) {
	r := newRenderer(t, render.Options{})
	page := []byte(`<p>Before the move</p><script>setTimeout(() => { location.href = '/elsewhere'; }, 50);</script>`)
	var mu sync.Mutex
	var asked []string
	f := render.FetcherFunc(func(_ context.Context, req *http.Request) (*render.Response, error) {
		mu.Lock()
		asked = append(asked, req.URL.Path)
		mu.Unlock()
		return &render.Response{StatusCode: http.StatusOK, Body: []byte(`<p>Elsewhere</p>`)}, nil
	})
	p, err := r.Render(t.Context(), "http://127.0.0.1:1/start", page, "text/html", f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(p.HTML), "Before the move") || !slices.Equal(p.Moved, []string{"http://127.0.0.1:1/elsewhere"}) {
		t.Errorf("rendered %s, moved %v: want the page as it was, /elsewhere among its moves", p.HTML, p.Moved)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 0 {
		t.Errorf("the Fetcher was asked for %v", asked)
	}
}

// TestRenderedHTMLBounded: a page whose script builds a document far
// larger than MaxBytes is read cut at MaxBytes, not sent whole.
func TestRenderedHTMLBounded(t *testing.T) {
	const limit = 1 << 20
	r := newRenderer(t, render.Options{MaxBytes: limit})
	page := []byte(`<p>Start</p><script>document.body.append('x'.repeat(4 * 1024 * 1024));</script>`)
	p, err := r.Render(t.Context(), "http://127.0.0.1:1/", page, "text/html", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.HTML) > limit || !strings.Contains(string(p.HTML), "Start") {
		t.Errorf("rendered HTML of %d bytes, want at most %d, from the start", len(p.HTML), limit)
	}
}

// TestRenderPageThatNeverAnswers: a page whose script loops for ever ends
// with ErrUnresponsive once its budget is spent and its DOM cannot be
// read, and the renderer renders the next page.
func TestRenderPageThatNeverAnswers(t *testing.T) {
	r := newRenderer(t, render.Options{Timeout: time.Second})
	start := time.Now()
	_, err := r.Render(t.Context(), "http://127.0.0.1:1/", []byte(`<p>Busy</p><script>setTimeout(() => { for (;;) {} }, 10);</script>`), "text/html", nil)
	if !errors.Is(err, render.ErrUnresponsive) {
		t.Errorf("a page that loops: %v, want ErrUnresponsive", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("it took %v with a budget of 1s", took)
	}
	p, err := r.Render(t.Context(), "http://127.0.0.1:1/next", []byte(`<a href="/a">a</a>`), "text/html", nil)
	if err != nil || len(p.Links) != 1 {
		t.Fatalf("the next page: %v", err)
	}
}

// TestSettleWaitsForTimersDueSoon: a page whose links come after a chain
// of short timers and a request, each started when the network is idle,
// is read once the chain has run: the timers due within Settle count as
// work under way.
func TestSettleWaitsForTimersDueSoon(t *testing.T) {
	r := newRenderer(t, render.Options{Settle: 250 * time.Millisecond})
	page := []byte(`<p>Chain</p><script>
setTimeout(async () => {
	const next = await (await fetch('/next.json')).json();
	setTimeout(() => {
		const a = document.createElement('a');
		a.href = next.href;
		a.textContent = 'late';
		document.body.append(a);
	}, 150);
}, 150);
</script>`)
	f := render.FetcherFunc(func(_ context.Context, req *http.Request) (*render.Response, error) {
		return &render.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"href":"/late"}`)}, nil
	})
	p, err := r.Render(t.Context(), "http://127.0.0.1:1/", page, "text/html", f)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Settled || !slices.Contains(p.Links, "http://127.0.0.1:1/late") {
		t.Errorf("settled %v, links %v: want the link the timers add", p.Settled, p.Links)
	}
}

// TestSettleDespiteWorkThatNeverEnds: a page that sets a short timer
// again and again (an animation, a poll) settles once its network has
// been idle for Settle, and one whose script waits on a body that never
// ends (counted as a request under way, though none reaches the network)
// once nothing has moved for a while: both well within their budget.
func TestSettleDespiteWorkThatNeverEnds(t *testing.T) {
	r := newRenderer(t, render.Options{Timeout: 10 * time.Second})
	for name, script := range map[string]string{
		"timers": `let n = 0;
const tick = () => { document.getElementById('n').textContent = String(++n); setTimeout(tick, 20); };
tick();`,
		"read": `new Response(new ReadableStream({ start() {} })).text();`,
	} {
		page := []byte(`<p id="n">0</p><a href="/a">a</a><script>` + script + `</script>`)
		p, err := r.Render(t.Context(), "http://127.0.0.1:1/", page, "text/html", nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !p.Settled || !slices.Contains(p.Links, "http://127.0.0.1:1/a") {
			t.Errorf("%s: settled %v, links %v: want a settled page", name, p.Settled, p.Links)
		}
	}
}

// TestRequestsBoundedByMaxBytes: once a page's requests have fetched
// MaxBytes together, its further requests are refused, and the page
// renders without them.
func TestRequestsBoundedByMaxBytes(t *testing.T) {
	const limit = 64 << 10
	r := newRenderer(t, render.Options{MaxBytes: limit})
	page := []byte(`<p>Big</p><script>
(async () => {
	for (let i = 0; i < 3; i++) {
		try { await (await fetch('/part/' + i)).text(); } catch (e) {}
	}
	document.body.dataset.done = 'yes';
})();
</script>`)
	f := render.FetcherFunc(func(_ context.Context, req *http.Request) (*render.Response, error) {
		return &render.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/plain"}}, Body: make([]byte, 40<<10)}, nil
	})
	p, err := r.Render(t.Context(), "http://127.0.0.1:1/", page, "text/html", f)
	if err != nil {
		t.Fatal(err)
	}
	if p.Fetched != 1 || p.Refused != 2 || !strings.Contains(string(p.HTML), `data-done="yes"`) {
		t.Errorf("fetched %d, refused %d (want 1 and 2, 40 KiB each against %d bytes); done: %v", p.Fetched, p.Refused, limit, strings.Contains(string(p.HTML), `data-done="yes"`))
	}
}

// TestTabsRenderPagesInParallel: pages rendered two at a time, in tabs
// reused from page to page, each give all of their links: a tab's last
// page (emptied to about:blank) is not taken for its next, whose load
// would then seem over before it began.
func TestTabsRenderPagesInParallel(t *testing.T) {
	const pages = 40
	s, f, shell := generatedSite(t, 2*pages+1)
	r := newRenderer(t, render.Options{Tabs: 2})
	var wg sync.WaitGroup
	for first := range 2 {
		wg.Go(func() {
			for i := first; i < pages; i += 2 {
				u := fmt.Sprintf("%s/gen/%d", s.URL(), i)
				p, err := r.Render(t.Context(), u, shell, "text/html; charset=utf-8", f)
				if err != nil {
					t.Errorf("%s: %v", u, err)
					continue
				}
				for _, to := range []int{i + 1, 2*i + 1, 2*i + 2} {
					if want := fmt.Sprintf("%s/gen/%d", s.URL(), to); !slices.Contains(p.Links, want) {
						t.Errorf("%s rendered without its link to %s (links %v, %d requests fetched)", u, want, p.Links, p.Fetched)
					}
				}
			}
		})
	}
	wg.Wait()
}

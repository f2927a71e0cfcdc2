package jsweb_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/linksrus/linksrus/internal/chromium/chromiumtest"
	"github.com/linksrus/linksrus/internal/jsweb"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestServedAsHTML: as served, every route is the same shell, which links
// nothing and holds none of the text fetched after load; the API holds
// the navigation and each route's text.
func TestServedAsHTML(t *testing.T) {
	s, err := jsweb.Start(jsweb.Options{Generated: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, route := range s.Pages() {
		code, body := get(t, s.URL()+route)
		if code != http.StatusOK {
			t.Fatalf("%s: status %d", route, code)
		}
		if strings.Contains(body, "<a ") || strings.Contains(body, "quokka"+strings.TrimPrefix(route, "/docs/")) {
			t.Errorf("%s serves links or its late text: %s", route, body)
		}
	}
	if _, nav := get(t, s.URL()+"/api/nav.json"); !strings.Contains(nav, `"/docs/install"`) {
		t.Errorf("navigation: %s", nav)
	}
	if _, p := get(t, s.URL()+"/api/page/docs/intro"); !strings.Contains(p, jsweb.LateWord("/docs/intro")) {
		t.Errorf("/docs/intro's text: %s", p)
	}
	if code, _ := get(t, s.URL()+"/docs/nowhere"); code != http.StatusNotFound {
		t.Errorf("unknown route: status %d", code)
	}
	if s.Requests("/docs/intro") != 1 {
		t.Errorf("requests counted: %d", s.Requests("/docs/intro"))
	}
}

// TestRenderedInChromium holds the site to what the package promises a
// browser sees, with its probes pointed at loopback listeners (this
// browser's requests are not intercepted): the menu, the late text, the
// shadow root's link, the link added on scroll, the pushed route, the
// generated pages' links, and both probes requested.
func TestRenderedInChromium(t *testing.T) {
	browser := chromiumtest.ForTest(t)
	var private atomic.Int32
	privateSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { private.Add(1) }))
	defer privateSrv.Close()
	disallowedURL, disallowed, closeDisallowed, err := jsweb.Disallowing("127.0.0.2")
	if err != nil {
		t.Skip(err)
	}
	defer closeDisallowed()
	s, err := jsweb.Start(jsweb.Options{PrivateURL: privateSrv.URL + "/probe", DisallowedURL: disallowedURL + "/secret", Generated: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(browser), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.UserDataDir(t.TempDir()))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	defer cancelTimeout()

	links := func() []string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => {
			const out = [];
			const walk = (root) => root.querySelectorAll('*').forEach((el) => {
				if (el.tagName === 'A') out.push(new URL(el.href).pathname);
				if (el.shadowRoot) walk(el.shadowRoot);
			});
			walk(document);
			return out;
		})()`))
		if err != nil {
			t.Fatalf("links: %v", err)
		}
		return v
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL()+"/"), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="yes"]`))); err != nil {
		t.Fatalf("render /: %v", err)
	}
	got := links()
	for _, want := range []string{"/", "/docs/intro", "/docs/install", "/docs/config", "/endless.html", "/hog.html", "/docs/shadow"} {
		if !slices.Contains(got, want) {
			t.Errorf("rendered / links %v, without %s", got, want)
		}
	}
	if path, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`)); err != nil || path != "/docs/pushed" {
		t.Errorf("location after load: %q, %v; want /docs/pushed", path, err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#app`)))
	if err != nil || !strings.Contains(text, jsweb.LateWord("/")) {
		t.Errorf("rendered text %q (%v) lacks %s", text, err, jsweb.LateWord("/"))
	}
	if err := chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.body.scrollHeight)`),
		chromedp.WaitVisible(chromedp.CSS(`#scrolled`))); err != nil {
		t.Errorf("scrolled to the end: %v", err)
	}
	if got := links(); !slices.Contains(got, "/docs/scrolled") {
		t.Errorf("after scrolling, links %v", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for (private.Load() == 0 || disallowed() == 0) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if private.Load() == 0 || disallowed() == 0 {
		t.Errorf("probes requested: private %d, disallowed %d; want both", private.Load(), disallowed())
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL()+"/gen/1"), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="yes"]`))); err != nil {
		t.Fatalf("render /gen/1: %v", err)
	}
	if got := links(); !slices.Contains(got, "/gen/2") || !slices.Contains(got, "/gen/3") || !slices.Contains(got, "/gen/4") {
		t.Errorf("rendered /gen/1 links %v, want /gen/2, /gen/3, /gen/4", got)
	}
}

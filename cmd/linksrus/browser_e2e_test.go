package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/linksrus/linksrus/internal/chromium/chromiumtest"
)

// startLoopbackSite serves the test site's pages on ip (a loopback
// address other than 127.0.0.1 is another host to the crawler).
func startLoopbackSite(t *testing.T, ip string, n int) *testSite {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	// Tagged: the same generated text on two hosts would be duplicates,
	// one result for both.
	s := &testSite{n: n, fetches: map[string]int{}, tag: ip}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.Server.Listener.Close()
	s.Server.Listener = ln
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// TestSearchPageInBrowser drives the search page in headless Chromium as a
// person would: type a query, read the results and their marked words,
// narrow them to one host with the facet, go to page 2, open the status
// page. LINKSRUS_SCREENSHOT=FILE keeps a screenshot of the results (make
// screenshot writes docs/search.png with it); otherwise it goes to a
// temporary directory.
func TestSearchPageInBrowser(t *testing.T) {
	browser := chromiumtest.ForTest(t)
	a := startLoopbackSite(t, "127.0.0.1", 25)
	b := startLoopbackSite(t, "127.0.0.2", 12)
	data := t.TempDir()
	if r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", a.URL+"/", b.URL+"/"); r.code != 0 {
		t.Fatalf("crawl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	base := startServe(t, nil, "--data", data, "--name", "Gopher search")
	total := a.distinct() + b.distinct()

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(browser),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.WindowSize(1200, 900),
		chromedp.UserDataDir(t.TempDir()),
	)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTimeout()

	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return v
	}
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("evaluate %s: %v", js, err)
		}
		return v
	}

	run("type a query",
		chromedp.Navigate(base),
		chromedp.WaitVisible(chromedp.CSS(`#q`)),
		chromedp.SendKeys(chromedp.CSS(`#q`), "gophers number"),
		chromedp.Submit(chromedp.CSS(`#q`)),
		chromedp.WaitVisible(chromedp.CSS(`.result`)),
	)
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	count := text(`.count`)
	firstSnippet := text(`.result .snippet`)
	marks := eval(`Array.from(document.querySelectorAll('.result mark')).map(m => m.textContent.toLowerCase()).join(',')`)
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("Results 1–10 of %d", total); !strings.Contains(count, want) {
		t.Errorf("count = %q, want %q", count, want)
	}
	if !strings.Contains(title, "gophers number") {
		t.Errorf("title = %q", title)
	}
	if !strings.Contains(marks, "gophers") || !strings.Contains(marks, "number") {
		t.Errorf("marked words = %q, want gophers and number", marks)
	}
	if !strings.Contains(firstSnippet, "page number") {
		t.Errorf("first snippet = %q", firstSnippet)
	}
	shotPath := os.Getenv("LINKSRUS_SCREENSHOT")
	if shotPath == "" {
		shotPath = filepath.Join(t.TempDir(), "search.png")
	}
	if err := os.WriteFile(shotPath, shot, 0o644); err != nil {
		t.Fatal(err)
	}

	// The host facet: 127.0.0.2 and b's port (a site is a host and port)
	// holds b's pages only.
	bSite := strings.TrimPrefix(b.URL, "http://")
	run("click the host facet",
		chromedp.Click(chromedp.Search(`//aside[contains(@class,"facet")]//a[text()="`+bSite+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.result`)),
	)
	if want := fmt.Sprintf("of %d", b.distinct()); !strings.Contains(text(`.count`), want) {
		t.Errorf("facet count = %q, want %q", text(`.count`), want)
	}
	for _, u := range strings.Split(eval(`Array.from(document.querySelectorAll('.result cite')).map(c => c.textContent).join(' ')`), " ") {
		if !strings.HasPrefix(u, b.URL) {
			t.Errorf("site:%s shows %s", bSite, u)
		}
	}

	// Page 2 of the whole query, through the pagination.
	run("go to page 2",
		chromedp.Navigate(base+"search?q="+url.QueryEscape("gophers number")),
		chromedp.WaitVisible(chromedp.CSS(`a[rel=next]`)),
		chromedp.Click(chromedp.CSS(`a[rel=next]`)),
		chromedp.WaitVisible(chromedp.CSS(`a[rel=prev]`)),
	)
	if want := fmt.Sprintf("Results 11–20 of %d", total); !strings.Contains(text(`.count`), want) {
		t.Errorf("page 2 count = %q, want %q", text(`.count`), want)
	}

	// The status page, from the header's link.
	run("open the status page",
		chromedp.Click(chromedp.Search(`//nav//a[text()="Status"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#crawled`)),
	)
	// Each site's "/" and "/page/0" are one text: pages crawled, and one
	// document indexed for both.
	crawled := fmt.Sprint(a.reachable() + b.reachable())
	if want := fmt.Sprint(total); text(`#crawled`) != crawled || text(`#indexed`) != want {
		t.Errorf("status: crawled %q, indexed %q, want %s and %s", text(`#crawled`), text(`#indexed`), crawled, want)
	}
}

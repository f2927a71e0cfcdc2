package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/linkgraph/memory"
)

func robotsSite(t *testing.T, n int, robots func(w http.ResponseWriter) bool) (*hostServer, *requestLog) {
	log := &requestLog{}
	h := startHost(t, n, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			if robots(w) {
				fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
			}
		case "/":
			htmlPage(w, `<a href="/a">a</a> <a href="/b">b</a> <a href="/private">p</a>`)
		default:
			htmlPage(w, `<a href="/">home</a>`)
		}
	}))
	return h, log
}

// robots.txt answering 503 twice and then 200: the site is crawled
// completely in the same run, and robots.txt is obeyed.
func TestRobotsUnreachableThenReachable(t *testing.T) {
	var calls atomic.Int32
	h, log := robotsSite(t, 20, func(w http.ResponseWriter) bool {
		if calls.Add(1) <= 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return false
		}
		return true
	})
	e, err := engine.New(engine.Options{Graph: memory.New(), FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback(), Retry: fastRetry()}})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.Run(context.Background(), h.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pages != 3 || sum.Errors != 0 || sum.Reasons["robots"] != 1 {
		t.Errorf("summary %+v, want 3 pages, no error, /private refused by robots.txt", sum.Progress)
	}
	if n := log.count(h.Host, "/robots.txt"); n != 3 {
		t.Errorf("robots.txt requested %d times, want 3", n)
	}
	if n := log.count(h.Host, "/private"); n != 0 {
		t.Errorf("/private requested %d times", n)
	}
}

// A robots.txt that stays unreachable: after the retries the host's pages
// are reported with ReasonRobotsUnreachable and the error itself, and no
// page of the host is requested.
func TestRobotsUnreachableForGood(t *testing.T) {
	h, log := robotsSite(t, 21, func(w http.ResponseWriter) bool {
		w.WriteHeader(http.StatusBadGateway)
		return false
	})
	e, err := engine.New(engine.Options{Graph: memory.New(), FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback(), Retry: fastRetry()}})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.Run(context.Background(), h.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Seeds) != 1 {
		t.Fatalf("seed outcomes %v", sum.Seeds)
	}
	o := sum.Seeds[0]
	if o.Reason != crawler.ReasonRobotsUnreachable || o.Err == nil || !strings.Contains(o.Err.Error(), "502") {
		t.Errorf("seed outcome %v (%v), want robots-unreachable with the 502", o.Reason, o.Err)
	}
	if !o.Reason.IsError() || sum.Errors != 1 {
		t.Errorf("robots-unreachable must count as an error: %+v", sum.Progress)
	}
	if n := log.count(h.Host, "/robots.txt"); n != 1+crawler.DefaultMaxRetries {
		t.Errorf("robots.txt requested %d times, want %d", n, 1+crawler.DefaultMaxRetries)
	}
	if n := log.count(h.Host, "/"); n != 0 {
		t.Errorf("a page was requested %d times despite robots.txt being unreachable", n)
	}
	var se interface{ Unwrap() error }
	if !errors.As(o.Err, &se) {
		t.Errorf("the error should wrap the fetch's: %v", o.Err)
	}
}

// A robots.txt Crawl-delay spaces the host's requests, capped at
// Options.MaxCrawlDelay; the URL /robots.txt itself is always allowed,
// whatever the file says of it.
func TestRobotsCrawlDelayCapped(t *testing.T) {
	const maxDelay = 300 * time.Millisecond
	log := &requestLog{}
	h := startHost(t, 45, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\nDisallow: /robots.txt\nCrawl-delay: 60\n")
		case "/":
			htmlPage(w, `<a href="/a">a</a> <a href="/b">b</a> <a href="/private">p</a>`)
		default:
			htmlPage(w, `<a href="/">home</a>`)
		}
	}))
	e, err := engine.New(engine.Options{
		Graph: memory.New(),
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: loopback(),
			DecorateRequest: func(r *http.Request) error {
				stampSent(r)
				return nil
			},
		},
		MaxCrawlDelay: maxDelay,
	})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.Run(context.Background(), h.URL+"/", h.URL+"/robots.txt")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pages != 3 || sum.Reasons["robots"] != 1 {
		t.Errorf("summary %+v, want 3 pages, /private refused by robots.txt", sum.Progress)
	}
	for _, o := range sum.Seeds {
		if strings.HasSuffix(o.URL, "/robots.txt") && o.Reason == crawler.ReasonRobots {
			t.Errorf("seed /robots.txt refused by robots.txt: %v", o.Err)
		}
	}
	if n := log.count(h.Host, "/robots.txt"); n != 2 { // the file, then the seed
		t.Errorf("/robots.txt requested %d times, want 2", n)
	}
	// The delay applies from the request after the file's (see
	// politeness.Scheduler.SetDelay): the later requests, which the
	// crawler stamps (pages, the seed /robots.txt, sitemaps), are spaced
	// by it.
	var prev time.Time
	stamped := 0
	for _, r := range log.of(h.Host) {
		if r.sent.IsZero() {
			continue // the robots.txt fetch itself
		}
		// Not far beyond the cap either: the file's 60 s, or the
		// default cap of 10 s, would be.
		if gap := r.sent.Sub(prev); stamped > 0 && (gap < maxDelay-10*time.Millisecond || gap > 5*time.Second) {
			t.Errorf("%s %s sent %v after the previous request, want %v (the capped Crawl-delay)", r.method, r.path, gap, maxDelay)
		}
		stamped++
		prev = r.sent
	}
	if stamped < 4 { // at least /, /a, /b and the seed /robots.txt
		t.Errorf("%d requests after robots.txt, want at least 4", stamped)
	}
}

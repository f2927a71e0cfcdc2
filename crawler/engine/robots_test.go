package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

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
	e, err := engine.New(engine.Options{Graph: memory.New(), Detector: loopback(), Retry: fastRetry()})
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
	e, err := engine.New(engine.Options{Graph: memory.New(), Detector: loopback(), Retry: fastRetry()})
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
	if !engine.IsError(o.Reason) || sum.Errors != 1 {
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

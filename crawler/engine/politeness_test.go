package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/linkgraph/memory"
)

func fastRetry() crawler.RetryPolicy {
	return crawler.RetryPolicy{BaseDelay: 20 * time.Millisecond, MaxDelay: 100 * time.Millisecond}
}

// Per host, every request (robots.txt, HEAD, GET, each redirect hop, each
// retry) starts at least Delay after the previous one and at most PerHost
// are in flight, however the requests come about: two hosts redirect to a
// third, a page answers 503 with Retry-After first, HEAD precedes GET.
func TestPolitenessEveryRequest(t *testing.T) {
	const delay = 100 * time.Millisecond
	log := &requestLog{}
	c := startHost(t, 4, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
			return
		}
		time.Sleep(5 * time.Millisecond)
		htmlPage(w, "landed")
	}))
	var flaky sync.Map
	origin := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := r.URL.Path
			switch {
			case p == "/robots.txt":
				fmt.Fprint(w, "User-agent: *\nAllow: /\n")
			case p == "/":
				var b strings.Builder
				for i := range 4 {
					fmt.Fprintf(&b, `<a href="/p%d">p</a> `, i)
				}
				b.WriteString(`<a href="/r1">r</a> <a href="/r2">r</a> <a href="/flaky">f</a>`)
				htmlPage(w, b.String())
			case strings.HasPrefix(p, "/r"):
				http.Redirect(w, r, fmt.Sprintf("http://%s/%s%s", c.Host, name, p), http.StatusFound)
			case p == "/flaky" && r.Method == http.MethodGet:
				if _, seen := flaky.LoadOrStore(name, true); !seen {
					w.Header().Set("Retry-After", "1")
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
				htmlPage(w, "flaky")
			default:
				time.Sleep(5 * time.Millisecond)
				htmlPage(w, "page")
			}
		})
	}
	a := startHost(t, 2, log, origin("a"))
	b := startHost(t, 3, log, origin("b"))

	e, err := engine.New(engine.Options{
		Graph: memory.New(),
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: loopback(),
			Workers:                16,
			HeadFirst:              true,
			Retry:                  fastRetry(),
			DecorateRequest: func(r *http.Request) error {
				stampSent(r)
				return nil
			},
		},
		PerHost: 2,
		Delay:   delay,
		AnyHost: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.Run(context.Background(), a.URL+"/", b.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	// Each origin: /, p0-p3, flaky; two redirects landing on c.
	if sum.Pages != 16 || sum.Errors != 0 {
		t.Errorf("crawled %d pages with %d errors, want 16 and 0: %v", sum.Pages, sum.Errors, sum.Reasons)
	}
	for _, h := range []*hostServer{a, b, c} {
		log.checkPoliteness(t, h.Host, 2, delay)
		if n := log.count(h.Host, "/robots.txt"); n != 1 {
			t.Errorf("%s: robots.txt fetched %d times", h.Host, n)
		}
	}
	if n := log.count(a.Host, "/flaky"); n != 3 { // HEAD (503 is not settled by it), GET 503, GET 200
		t.Errorf("/flaky requested %d times on a, want 3", n)
	}
	if n := log.count(c.Host, "/a/r1"); n != 2 { // HEAD and GET
		t.Errorf("/a/r1 requested %d times on c, want 2", n)
	}
}

// Two hosts redirecting to a third, with no delay: the third never has
// more than PerHost requests in flight, however many redirects arrive.
func TestPolitenessRedirectsShareTheTargetsSlots(t *testing.T) {
	log := &requestLog{}
	target := startHost(t, 7, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			return
		}
		time.Sleep(40 * time.Millisecond)
		htmlPage(w, "landed")
	}))
	origin := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch p := r.URL.Path; {
			case p == "/robots.txt":
			case p == "/":
				var b strings.Builder
				for i := range 12 {
					fmt.Fprintf(&b, `<a href="/r%d">r</a> `, i)
				}
				htmlPage(w, b.String())
			default:
				http.Redirect(w, r, fmt.Sprintf("http://%s/%s%s", target.Host, name, p), http.StatusFound)
			}
		})
	}
	a := startHost(t, 5, log, origin("a"))
	b := startHost(t, 6, log, origin("b"))
	e, err := engine.New(engine.Options{
		Graph: memory.New(),
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: loopback(),
			Workers:                16,
		},
		PerHost: 2,
		AnyHost: true,
		OnOutcome: func(o crawler.Outcome) {
			if o.Err != nil {
				t.Log(o.URL, o.Err)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.Run(context.Background(), a.URL+"/", b.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pages != 26 {
		t.Errorf("crawled %d pages, want 26: %v", sum.Pages, sum.Reasons)
	}
	for _, h := range []*hostServer{a, b, target} {
		log.checkPoliteness(t, h.Host, 2, 0)
	}
}

// A host answering in two seconds does not hold up nine fast ones: by the
// time every fast page has been served, the slow host has served only a
// few (counted, not timed).
func TestSlowHostDoesNotHoldUpOthers(t *testing.T) {
	const pages = 15
	log := &requestLog{}
	var fastLeft atomic.Int64
	fastLeft.Store(9 * (pages + 1))
	var slowServed atomic.Int64
	slowAtEnd := make(chan int64, 1)
	site := func(slow bool) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" {
				return
			}
			if slow {
				time.Sleep(2 * time.Second)
				slowServed.Add(1)
			}
			var b strings.Builder
			if r.URL.Path == "/" {
				for i := range pages {
					fmt.Fprintf(&b, `<a href="/p%d">p</a> `, i)
				}
			}
			htmlPage(w, b.String())
			if !slow && fastLeft.Add(-1) == 0 {
				slowAtEnd <- slowServed.Load()
			}
		})
	}
	var seeds []string
	for i := range 10 {
		h := startHost(t, 10+i, log, site(i == 0))
		seeds = append(seeds, h.URL+"/")
	}
	e, err := engine.New(engine.Options{Graph: memory.New(), FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback(), Workers: 8}, PerHost: 2})
	if err != nil {
		t.Fatal(err)
	}
	run, err := e.Start(context.Background(), seeds...)
	if err != nil {
		t.Fatal(err)
	}
	var slow int64
	select {
	case slow = <-slowAtEnd:
	case <-run.Done():
		t.Fatal("the crawl ended before every fast page was served")
	}
	run.Stop()
	if _, err := run.Wait(); err != nil {
		t.Fatal(err)
	}
	if slow > 6 {
		t.Errorf("the slow host had served %d pages when the fast hosts were done, want a few", slow)
	}
}

// slowToSend is a URLGetter that holds some requests back before sending
// them, as a slow dial or a goroutine paused on a loaded machine would:
// after the host's scheduler let them start, before they reach the wire.
type slowToSend struct {
	next crawler.URLGetter
	hold func(*http.Request) time.Duration
}

func (g slowToSend) Do(req *http.Request) (*http.Response, error) {
	time.Sleep(g.hold(req))
	return g.next.Do(req)
}

// The host's delay runs from the moment a request is written, not from
// when the scheduler let it start: a request held up between the two must
// not bring the next one closer than the delay at the server. Every other
// page is held back 60 ms of a 100 ms delay; counted from the start, the
// server saw gaps of about 40 ms.
func TestDelayCountsFromTheWrite(t *testing.T) {
	const delay = 100 * time.Millisecond
	log := &requestLog{}
	h := startHost(t, 6, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			var b strings.Builder
			for i := range 6 {
				fmt.Fprintf(&b, `<a href="/p%d">p</a> `, i)
			}
			htmlPage(w, b.String())
			return
		}
		htmlPage(w, "page")
	}))
	fo := crawler.FetchOptions{PrivateNetworkDetector: loopback(), Workers: 8}.WithDefaults()
	fo.URLGetter = slowToSend{next: fo.URLGetter, hold: func(r *http.Request) time.Duration {
		if strings.HasSuffix(r.URL.Path, "0") || strings.HasSuffix(r.URL.Path, "2") || strings.HasSuffix(r.URL.Path, "4") {
			return 60 * time.Millisecond
		}
		return 0
	}}
	e, err := engine.New(engine.Options{Graph: memory.New(), FetchOptions: fo, PerHost: 2, Delay: delay, IgnoreSitemaps: true})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.Run(context.Background(), h.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pages != 7 {
		t.Errorf("crawled %d pages, want 7: %v", sum.Pages, sum.Reasons)
	}
	log.checkPoliteness(t, h.Host, 2, delay)
}

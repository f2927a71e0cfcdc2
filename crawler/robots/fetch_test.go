package robots

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// site is an httptest server whose /robots.txt is served by robots and
// counted; other paths answer 200.
type site struct {
	*httptest.Server
	fetches atomic.Int64
	agent   atomic.Value // last User-Agent seen on /robots.txt
}

func newSite(t *testing.T, robots http.HandlerFunc) *site {
	t.Helper()
	s := &site{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			s.fetches.Add(1)
			s.agent.Store(r.UserAgent())
			robots(w, r)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(s.Close)
	return s
}

func body(text string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(text)) }
}

func status(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) }
}

// noRedirectClient does not follow redirects, like a crawler's client that
// handles them itself; Fetch must follow robots.txt redirects anyway.
func noRedirectClient() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// fetch fetches the robots.txt of the site at origin with opts.
func fetch(t *testing.T, origin string, opts Options) (*Rules, Basis, error) {
	t.Helper()
	c := noRedirectClient()
	t.Cleanup(c.CloseIdleConnections)
	return Fetch(context.Background(), c, origin, opts)
}

// allowed reports whether rules allow the URL raw.
func allowed(t *testing.T, r *Rules, raw string) bool {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return r.AllowedURL(u)
}

func TestFetchRules(t *testing.T) {
	s := newSite(t, body("User-agent: *\nDisallow: /private\nCrawl-delay: 2\n\nUser-agent: slowbot\nCrawl-delay: 60\n"))
	r, basis, err := fetch(t, s.URL, Options{UserAgent: "test-agent/1.0"})
	if err != nil || basis != BasisRules {
		t.Fatalf("Fetch: basis %v, %v", basis, err)
	}
	if !allowed(t, r, s.URL+"/public") || allowed(t, r, s.URL+"/private/x") {
		t.Errorf("/public allowed %v, /private/x allowed %v; want true, false", allowed(t, r, s.URL+"/public"), allowed(t, r, s.URL+"/private/x"))
	}
	if d, ok := r.CrawlDelay(); !ok || d != 2*time.Second {
		t.Errorf("CrawlDelay = %v, %v; want 2s", d, ok)
	}
	if n := s.fetches.Load(); n != 1 {
		t.Errorf("robots.txt fetched %d times, want 1", n)
	}
	if ua := s.agent.Load(); ua != "test-agent/1.0" {
		t.Errorf("User-Agent = %v", ua)
	}
	// Another robot name gets its own group, whose Crawl-delay is not
	// capped here (that is the caller's).
	r, _, _ = fetch(t, s.URL, Options{RobotName: "slowbot"})
	if d, ok := r.CrawlDelay(); !ok || d != time.Minute || !allowed(t, r, s.URL+"/private/x") {
		t.Errorf("slowbot: CrawlDelay %v, %v, /private/x allowed %v; want 1m, its own group", d, ok, allowed(t, r, s.URL+"/private/x"))
	}
}

func TestFetchStatusHandling(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		allowed bool
		basis   Basis
	}{
		{"404 allows all", status(http.StatusNotFound), true, BasisUnavailable},
		{"401 allows all", status(http.StatusUnauthorized), true, BasisUnavailable},
		{"410 allows all", status(http.StatusGone), true, BasisUnavailable},
		{"429 disallows", status(http.StatusTooManyRequests), false, BasisUnreachable},
		{"500 disallows", status(http.StatusInternalServerError), false, BasisUnreachable},
		{"503 disallows", status(http.StatusServiceUnavailable), false, BasisUnreachable},
		{"redirect without Location", status(http.StatusFound), true, BasisUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, tt.handler)
			r, basis, err := fetch(t, s.URL, Options{})
			if got := allowed(t, r, s.URL+"/page"); got != tt.allowed || basis != tt.basis {
				t.Errorf("allowed %v basis %v, want allowed=%v basis=%v", got, basis, tt.allowed, tt.basis)
			}
			var se *StatusError
			if unreachable := tt.basis == BasisUnreachable; unreachable != errors.As(err, &se) {
				t.Errorf("err = %v, want a StatusError only for an unreachable file", err)
			}
		})
	}
}

// An unreachable file's StatusError carries the Retry-After, for the
// caller's retry.
func TestFetchStatusErrorRetryAfter(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	_, _, err := fetch(t, s.URL, Options{})
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusTooManyRequests || se.RetryAfter != "7" || !strings.Contains(se.Error(), "429") {
		t.Fatalf("err = %#v, want a 429 StatusError with Retry-After 7", err)
	}
}

func TestFetchUnreachableHost(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close() // nothing listens there now: connection refused
	r, basis, err := fetch(t, "http://"+addr, Options{})
	if allowed(t, r, "http://"+addr+"/x") || basis != BasisUnreachable || err == nil {
		t.Errorf("unreachable host: basis %v, err %v, /x allowed %v", basis, err, allowed(t, r, "http://"+addr+"/x"))
	}
}

// A fetch ends when its context does, with the file unreachable.
func TestFetchCancelled(t *testing.T) {
	release := make(chan struct{})
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	c := noRedirectClient()
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	r, basis, err := Fetch(ctx, c, s.URL, Options{})
	if !errors.Is(err, context.DeadlineExceeded) || basis != BasisUnreachable || allowed(t, r, s.URL+"/x") {
		t.Errorf("cancelled fetch: basis %v, err %v", basis, err)
	}
}

func TestFetchRedirects(t *testing.T) {
	target := newSite(t, body("User-agent: *\nDisallow: /secret\n"))
	var mu sync.Mutex
	chain := func(n int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			if step := r.URL.Query().Get("step"); step != "" && step >= string(rune('0'+n)) {
				http.Redirect(w, r, target.URL+"/robots.txt", http.StatusMovedPermanently)
				return
			}
			next := "1"
			if step := r.URL.Query().Get("step"); step != "" {
				next = string(step[0] + 1)
			}
			http.Redirect(w, r, "/robots.txt?step="+next, http.StatusFound)
		}
	}

	// 4 local hops + 1 to the other host = 5 redirects: followed.
	s := newSite(t, chain(4))
	r, basis, err := fetch(t, s.URL, Options{})
	if allowed(t, r, s.URL+"/secret") || basis != BasisRules || err != nil {
		t.Errorf("5 redirects: basis %v, err %v, /secret allowed %v", basis, err, allowed(t, r, s.URL+"/secret"))
	}
	if !allowed(t, r, s.URL+"/open") {
		t.Errorf("5 redirects: /open disallowed")
	}

	// 6 redirects: robots.txt is unavailable, everything allowed.
	s6 := newSite(t, chain(5))
	r, basis, err = fetch(t, s6.URL, Options{})
	if !allowed(t, r, s6.URL+"/secret") || basis != BasisUnavailable || err != nil {
		t.Errorf("6 redirects: basis %v, err %v", basis, err)
	}
}

func TestFetchMaxSize(t *testing.T) {
	filler := "# " + strings.Repeat("x", 1000) + "\n"
	big := "User-agent: *\nDisallow: /early\n" + strings.Repeat(filler, 600) + "Disallow: /late\n"
	s := newSite(t, body(big))
	r, _, _ := fetch(t, s.URL, Options{})
	if allowed(t, r, s.URL+"/early") {
		t.Error("rule within 500 KiB ignored")
	}
	if !allowed(t, r, s.URL+"/late") {
		t.Error("rule beyond 500 KiB applied")
	}
	// A rule cut in half by the limit must not apply as a shorter prefix.
	cut := "User-agent: *\nDisallow: /abcdef\n"
	s2 := newSite(t, body(cut))
	r, _, _ = fetch(t, s2.URL, Options{MaxSize: int64(len(cut) - 4)})
	if !allowed(t, r, s2.URL+"/ab") {
		t.Error("truncated line applied as a shorter pattern")
	}
}

// Invalid Options are refused before any request, and the rules of a
// refused fetch disallow everything.
func TestFetchInvalidOptions(t *testing.T) {
	s := newSite(t, body(""))
	for _, o := range []Options{{RobotName: "links rus"}, {RobotName: "bot/1.0"}, {MaxSize: -1}, {MaxRedirects: -1}} {
		r, basis, err := fetch(t, s.URL, o)
		if !errors.Is(err, ErrOptions) || basis != BasisUnreachable || allowed(t, r, s.URL+"/x") {
			t.Errorf("Fetch(%+v): basis %v, %v", o, basis, err)
		}
		if _, _, err := FetchBody(context.Background(), noRedirectClient(), s.URL, o); !errors.Is(err, ErrOptions) {
			t.Errorf("FetchBody(%+v): %v", o, err)
		}
	}
	if n := s.fetches.Load(); n != 0 {
		t.Errorf("%d requests with invalid options", n)
	}
	for b := BasisRules; b <= BasisUnreachable+1; b++ {
		if b.String() == "" {
			t.Errorf("Basis %d has no name", b)
		}
	}
}

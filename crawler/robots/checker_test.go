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

// fakeClock is a settable Options.Now.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// noRedirectClient does not follow redirects, like a crawler's client that
// handles them itself; Checker must follow robots.txt redirects anyway.
func noRedirectClient() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func newChecker(t *testing.T, opts Options) *Checker {
	t.Helper()
	c, err := New(noRedirectClient(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func check(t *testing.T, c *Checker, raw string) Decision {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Allowed(context.Background(), u)
	if err != nil {
		t.Fatalf("Allowed(%s): %v", raw, err)
	}
	return d
}

func TestCheckerRules(t *testing.T) {
	s := newSite(t, body("User-agent: *\nDisallow: /private\nCrawl-delay: 2\n\nUser-agent: slowbot\nCrawl-delay: 60\n"))
	c := newChecker(t, Options{UserAgent: "test-agent/1.0"})
	if d := check(t, c, s.URL+"/public"); !d.Allowed || d.CrawlDelay != 2*time.Second || d.Basis != BasisRules {
		t.Errorf("public: %+v", d)
	}
	if d := check(t, c, s.URL+"/private/x"); d.Allowed {
		t.Errorf("private allowed: %+v", d)
	}
	if n := s.fetches.Load(); n != 1 {
		t.Errorf("robots.txt fetched %d times, want 1", n)
	}
	if ua := s.agent.Load(); ua != "test-agent/1.0" {
		t.Errorf("User-Agent = %v", ua)
	}
}

func TestCrawlDelayCapped(t *testing.T) {
	s := newSite(t, body("User-agent: slowbot\nCrawl-delay: 60\n"))
	c := newChecker(t, Options{RobotName: "slowbot", MaxCrawlDelay: 5 * time.Second})
	if d := check(t, c, s.URL+"/"); d.CrawlDelay != 5*time.Second {
		t.Errorf("CrawlDelay = %v, want capped 5s", d.CrawlDelay)
	}
}

func TestRobotsPathAlwaysAllowed(t *testing.T) {
	s := newSite(t, body("User-agent: *\nDisallow: /\n"))
	c := newChecker(t, Options{})
	if d := check(t, c, s.URL+"/robots.txt"); !d.Allowed || d.Basis != BasisRobotsPath {
		t.Errorf("/robots.txt: %+v", d)
	}
	if s.fetches.Load() != 0 {
		t.Error("checking /robots.txt fetched it")
	}
	if d := check(t, c, s.URL+"/x"); d.Allowed {
		t.Errorf("/x allowed under Disallow: /")
	}
}

func TestStatusHandling(t *testing.T) {
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
			c := newChecker(t, Options{})
			if d := check(t, c, s.URL+"/page"); d.Allowed != tt.allowed || d.Basis != tt.basis {
				t.Errorf("got %+v, want allowed=%v basis=%v", d, tt.allowed, tt.basis)
			}
		})
	}
}

func TestUnreachableHost(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close() // nothing listens there now: connection refused
	c := newChecker(t, Options{})
	if d := check(t, c, "http://"+addr+"/x"); d.Allowed || d.Basis != BasisUnreachable {
		t.Errorf("unreachable host: %+v", d)
	}
}

func TestServerErrorRetriedAfterErrorTTL(t *testing.T) {
	var fail atomic.Bool
	fail.Store(true)
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("User-agent: *\nDisallow: /no\n"))
	})
	clock := &fakeClock{now: time.Unix(1e9, 0)}
	c := newChecker(t, Options{ErrorTTL: time.Minute, Now: clock.Now})
	if d := check(t, c, s.URL+"/yes"); d.Allowed {
		t.Fatal("allowed while robots.txt answers 503")
	}
	fail.Store(false)
	clock.Advance(30 * time.Second)
	if d := check(t, c, s.URL+"/yes"); d.Allowed || s.fetches.Load() != 1 {
		t.Fatalf("refetched before ErrorTTL: %+v, %d fetches", d, s.fetches.Load())
	}
	clock.Advance(31 * time.Second)
	if d := check(t, c, s.URL+"/yes"); !d.Allowed || d.Basis != BasisRules {
		t.Fatalf("after ErrorTTL: %+v", d)
	}
	if d := check(t, c, s.URL+"/no"); d.Allowed {
		t.Fatal("rules not applied after recovery")
	}
	if n := s.fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
}

func TestTTLExpiry(t *testing.T) {
	var rules atomic.Value
	rules.Store("User-agent: *\nDisallow: /a\n")
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(rules.Load().(string))) })
	clock := &fakeClock{now: time.Unix(1e9, 0)}
	c := newChecker(t, Options{TTL: time.Hour, Now: clock.Now})
	if check(t, c, s.URL+"/a").Allowed {
		t.Fatal("/a allowed")
	}
	rules.Store("User-agent: *\nDisallow: /b\n")
	clock.Advance(59 * time.Minute)
	if check(t, c, s.URL+"/a").Allowed {
		t.Fatal("cache not used within TTL")
	}
	clock.Advance(2 * time.Minute)
	if !check(t, c, s.URL+"/a").Allowed || check(t, c, s.URL+"/b").Allowed {
		t.Fatal("new rules not fetched after TTL")
	}
}

func TestRedirects(t *testing.T) {
	target := newSite(t, body("User-agent: *\nDisallow: /secret\n"))
	hops := 0
	var mu sync.Mutex
	chain := func(n int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			hops++
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
	c := newChecker(t, Options{})
	if d := check(t, c, s.URL+"/secret"); d.Allowed || d.Basis != BasisRules {
		t.Errorf("5 redirects: %+v", d)
	}
	if d := check(t, c, s.URL+"/open"); !d.Allowed {
		t.Errorf("5 redirects: /open disallowed")
	}

	// 6 redirects: robots.txt is unavailable, everything allowed.
	s6 := newSite(t, chain(5))
	c6 := newChecker(t, Options{})
	if d := check(t, c6, s6.URL+"/secret"); !d.Allowed || d.Basis != BasisUnavailable {
		t.Errorf("6 redirects: %+v", d)
	}
}

func TestMaxSize(t *testing.T) {
	filler := "# " + strings.Repeat("x", 1000) + "\n"
	big := "User-agent: *\nDisallow: /early\n" + strings.Repeat(filler, 600) + "Disallow: /late\n"
	s := newSite(t, body(big))
	c := newChecker(t, Options{})
	if check(t, c, s.URL+"/early").Allowed {
		t.Error("rule within 500 KiB ignored")
	}
	if !check(t, c, s.URL+"/late").Allowed {
		t.Error("rule beyond 500 KiB applied")
	}
	// A rule cut in half by the limit must not apply as a shorter prefix.
	cut := "User-agent: *\nDisallow: /abcdef\n"
	s2 := newSite(t, body(cut))
	c2 := newChecker(t, Options{MaxSize: int64(len(cut) - 4)})
	if !check(t, c2, s2.URL+"/ab").Allowed {
		t.Error("truncated line applied as a shorter pattern")
	}
}

func TestConcurrentCallersShareOneFetch(t *testing.T) {
	release := make(chan struct{})
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		<-release
		_, _ = w.Write([]byte("User-agent: *\nDisallow: /x\n"))
	})
	c := newChecker(t, Options{})
	u, _ := url.Parse(s.URL + "/page")
	const callers = 50
	var wg sync.WaitGroup
	var allowed atomic.Int64
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := c.Allowed(context.Background(), u)
			if err != nil {
				t.Error(err)
			}
			if d.Allowed {
				allowed.Add(1)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond) // let the callers pile up on the fetch
	close(release)
	wg.Wait()
	if n := s.fetches.Load(); n != 1 {
		t.Errorf("%d robots.txt fetches for %d concurrent callers, want 1", n, callers)
	}
	if allowed.Load() != callers {
		t.Errorf("%d of %d callers allowed", allowed.Load(), callers)
	}
}

func TestCallerContextDoesNotCancelSharedFetch(t *testing.T) {
	release := make(chan struct{})
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		<-release
		_, _ = w.Write([]byte("User-agent: *\nDisallow: /x\n"))
	})
	c := newChecker(t, Options{})
	u, _ := url.Parse(s.URL + "/x")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Allowed(ctx, u); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("impatient caller: %v", err)
	}
	close(release)
	if d := check(t, c, s.URL+"/x"); d.Allowed || d.Basis != BasisRules {
		t.Fatalf("patient caller: %+v", d)
	}
	if n := s.fetches.Load(); n != 1 {
		t.Errorf("%d fetches, want 1", n)
	}
}

func TestLRUEviction(t *testing.T) {
	sites := []*site{
		newSite(t, body("")), newSite(t, body("")), newSite(t, body("")),
	}
	c := newChecker(t, Options{CacheSize: 2})
	check(t, c, sites[0].URL+"/") // cache: 0
	check(t, c, sites[1].URL+"/") // cache: 1 0
	check(t, c, sites[0].URL+"/") // cache: 0 1
	check(t, c, sites[2].URL+"/") // cache: 2 0 (1 evicted)
	if c.Len() != 2 {
		t.Errorf("Len = %d, want 2", c.Len())
	}
	check(t, c, sites[0].URL+"/") // hit
	check(t, c, sites[1].URL+"/") // miss: refetched
	for i, want := range []int64{1, 2, 1} {
		if n := sites[i].fetches.Load(); n != want {
			t.Errorf("site %d fetched %d times, want %d", i, n, want)
		}
	}
}

func TestCloseCancelsFetch(t *testing.T) {
	release := make(chan struct{})
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	c, err := New(noRedirectClient(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(s.URL + "/x")
	errc := make(chan error)
	go func() { _, err := c.Allowed(context.Background(), u); errc <- err }()
	time.Sleep(20 * time.Millisecond)
	_ = c.Close()
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Errorf("waiting caller after Close: %v", err)
	}
	if _, err := c.Allowed(context.Background(), u); !errors.Is(err, ErrClosed) {
		t.Errorf("Allowed after Close: %v", err)
	}
	_ = c.Close()
}

func TestInvalidInput(t *testing.T) {
	c := newChecker(t, Options{})
	for _, raw := range []string{"/relative", "ftp://h/x", "mailto:a@b"} {
		u, _ := url.Parse(raw)
		if _, err := c.Allowed(context.Background(), u); !errors.Is(err, ErrInvalidURL) {
			t.Errorf("Allowed(%q): %v", raw, err)
		}
	}
	if _, err := c.Allowed(context.Background(), nil); !errors.Is(err, ErrInvalidURL) {
		t.Errorf("Allowed(nil): %v", err)
	}
	if _, err := New(nil, Options{}); !errors.Is(err, ErrOptions) {
		t.Errorf("New(nil): %v", err)
	}
	for _, o := range []Options{{RobotName: "links rus"}, {RobotName: "bot/1.0"}, {MaxSize: -1}, {TTL: -time.Second}} {
		if _, err := New(http.DefaultClient, o); !errors.Is(err, ErrOptions) {
			t.Errorf("New(%+v): %v", o, err)
		}
	}
	for b := BasisRules; b <= BasisUnreachable+1; b++ {
		if b.String() == "" {
			t.Errorf("Basis %d has no name", b)
		}
	}
}

package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler/privnet"
)

// fastRetries keeps the tests quick: a millisecond of backoff.
var fastRetries = RetryPolicy{MaxRetries: 3, BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond}

// retryConfig is a loopback Config whose fetch stage retries under p.
func retryConfig(p RetryPolicy) Config {
	cfg := loopbackConfig()
	cfg.Retry = p
	return cfg
}

// scripted answers the n-th request (from 0) with statuses[n], and the
// last status for every later one.
func scripted(t *testing.T, retryAfter string, statuses ...int) (string, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	s, _ := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		code := statuses[min(i, len(statuses)-1)]
		if code != http.StatusOK && retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(code)
		_, _ = fmt.Fprintf(w, "attempt %d", i)
	})
	return s.URL + "/", &n
}

// fetchCtx is fetchWith under ctx, without a scheduler: retries wait in
// place.
func fetchCtx(t *testing.T, ctx context.Context, cfg Config, rawURL string) (*Payload, bool) {
	t.Helper()
	cfg, err := cfg.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := cfg.URLGetter.(*http.Client); ok {
		t.Cleanup(c.CloseIdleConnections)
	}
	f, err := NewFetcher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPayload([16]byte{1}, rawURL, time.Time{})
	t.Cleanup(p.MarkAsProcessed)
	out, err := f.Process(ctx, p)
	if err != nil {
		t.Fatalf("Process: %v", err)
	}
	return p, out != nil
}

// The fetch stage retries 429 and the 5xx that may pass, at most
// MaxRetries times, waiting for a Retry-After within MaxRetryAfter; other
// statuses, and a Retry-After beyond the cap, end the fetch at once.
func TestFetcherRetryStatuses(t *testing.T) {
	cases := []struct {
		name       string
		policy     *RetryPolicy // default fastRetries
		statuses   []int
		retryAfter string
		want       int // final status
		requests   int32
		minElapsed time.Duration
	}{
		{name: "503 then 200", statuses: []int{503, 200}, want: 200, requests: 2},
		{name: "429 with Retry-After then 200", statuses: []int{429, 200}, retryAfter: "1", want: 200, requests: 2, minElapsed: time.Second},
		{name: "502, 504 then 200", statuses: []int{502, 504, 200}, want: 200, requests: 3},
		{name: "always 500: bounded", statuses: []int{500}, want: 500, requests: 4},
		{name: "404 not retried", statuses: []int{404, 200}, want: 404, requests: 1},
		{name: "403 not retried", statuses: []int{403, 200}, want: 403, requests: 1},
		{name: "501 not retried", statuses: []int{501, 200}, want: 501, requests: 1},
		{name: "505 not retried", statuses: []int{505, 200}, want: 505, requests: 1},
		{name: "Retry-After beyond the cap not waited for", statuses: []int{429, 200}, retryAfter: "3600", want: 429, requests: 1},
		{name: "Retry-After beyond a lower cap not waited for", statuses: []int{503, 200}, retryAfter: "2", want: 503, requests: 1,
			policy: &RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxRetryAfter: time.Second}},
		{name: "Retry-After as a past date", statuses: []int{503, 200}, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT", want: 200, requests: 2},
		{name: "no retries", statuses: []int{503, 200}, want: 503, requests: 1,
			policy: &RetryPolicy{MaxRetries: -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, n := scripted(t, c.retryAfter, c.statuses...)
			policy := fastRetries
			if c.policy != nil {
				policy = *c.policy
			}
			start := time.Now()
			p, kept := fetchWith(t, retryConfig(policy), u)
			if p.StatusCode != c.want || n.Load() != c.requests {
				t.Errorf("status %d after %d requests, want %d after %d", p.StatusCode, n.Load(), c.want, c.requests)
			}
			if c.want == http.StatusOK {
				if want := fmt.Sprintf("attempt %d", c.requests-1); !kept || string(p.Body) != want {
					t.Errorf("kept %v body %q (%v %v), want the last attempt's %q", kept, p.Body, p.outcome.reason, p.outcome.err, want)
				}
			} else if kept || p.outcome.reason != ReasonHTTPStatus {
				t.Errorf("kept %v reason %v, want %v", kept, p.outcome.reason, ReasonHTTPStatus)
			}
			if el := time.Since(start); el < c.minElapsed {
				t.Errorf("took %v, want at least %v (Retry-After)", el, c.minElapsed)
			}
		})
	}
}

// A wait that would outlast the fetch's timeout is not started: the last
// response settles the page at once.
func TestFetcherRetryGivesUpBeforeDeadline(t *testing.T) {
	u, n := scripted(t, "2", 503, 200)
	cfg := retryConfig(fastRetries)
	cfg.FetchTimeout = time.Second
	start := time.Now()
	p, kept := fetchWith(t, cfg, u)
	if kept || p.StatusCode != 503 || p.outcome.reason != ReasonHTTPStatus || n.Load() != 1 {
		t.Fatalf("kept %v status %d reason %v after %d requests; want the 503 alone", kept, p.StatusCode, p.outcome.reason, n.Load())
	}
	if el := time.Since(start); el > 900*time.Millisecond { // waiting would take the 2 s Retry-After
		t.Errorf("took %v: it waited", el)
	}
}

// Cancelling the crawl ends a retry's wait at once; the page is reported
// cancelled, not failed.
func TestFetcherRetryCancelledWhileWaiting(t *testing.T) {
	u, n := scripted(t, "", 503)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for n.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		// The server has counted the request; the fetcher then reads
		// the 503 and starts its minute's wait. Cancelled before it has
		// read the answer, it settles the page as the 503 it got (seen
		// once under -race), which is not what this test is about.
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	cfg := retryConfig(RetryPolicy{BaseDelay: time.Minute, MaxDelay: time.Minute})
	cfg.FetchTimeout = 10 * time.Minute // the wait fits in the fetch's time
	start := time.Now()
	p, kept := fetchCtx(t, ctx, cfg, u)
	if kept || p.outcome.reason != ReasonCanceled || !errors.Is(p.outcome.err, context.Canceled) || n.Load() != 1 {
		t.Fatalf("kept %v reason %v (%v) after %d requests, want cancelled after 1", kept, p.outcome.reason, p.outcome.err, n.Load())
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("took %v: the wait outlived the cancellation", el)
	}
}

// A connection closed before the response is transient; the request is
// sent again on a new connection.
func TestFetcherRetryConnectionReset(t *testing.T) {
	var n atomic.Int32
	s, _ := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				if tc, ok := conn.(*net.TCPConn); ok {
					_ = tc.SetLinger(0) // RST rather than FIN
				}
				_ = conn.Close()
			}
			return
		}
		htmlPage(w, "ok")
	})
	p, kept := fetchWith(t, retryConfig(fastRetries), s.URL)
	if !kept || p.StatusCode != 200 || string(p.Body) != "ok" || n.Load() != 2 {
		t.Fatalf("kept %v status %d body %q (%v) after %d requests", kept, p.StatusCode, p.Body, p.outcome.err, n.Load())
	}
}

// A retried request is the current hop's: a redirect target that fails
// once is sent again, and a later redirect is still checked by the gates.
func TestFetcherRetryAfterRedirect(t *testing.T) {
	var n atomic.Int32
	s, hits := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/old":
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
		case r.URL.Path == "/outside":
			htmlPage(w, "must not be fetched")
		case r.URL.Path == "/to-outside":
			http.Redirect(w, r, "/outside", http.StatusFound)
		case n.Add(1) == 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			htmlPage(w, "new")
		}
	})
	cfg := retryConfig(fastRetries)
	cfg.Gates = []Gate{GateFunc(func(_ context.Context, u *url.URL) error {
		if u.Path == "/outside" {
			return Skip(ReasonScope, nil)
		}
		return nil
	})}
	p, kept := fetchWith(t, cfg, s.URL+"/old")
	if !kept || p.FinalURL != s.URL+"/new" || string(p.Body) != "new" {
		t.Fatalf("kept %v FinalURL %q body %q (%v %v)", kept, p.FinalURL, p.Body, p.outcome.reason, p.outcome.err)
	}
	p, kept = fetchWith(t, cfg, s.URL+"/to-outside")
	if kept || p.outcome.reason != ReasonScope {
		t.Fatalf("kept %v reason %v, want scope", kept, p.outcome.reason)
	}
	want := []string{"GET /old", "GET /new", "GET /new", "GET /to-outside"}
	if got := hits.list(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests = %q, want %q", got, want)
	}
}

// parkingScheduler is a Frontier that lets every request start and keeps
// the pages parked with it, with the time they may resume.
type parkingScheduler struct {
	LinkFrontier // the methods this test does not use
	mu           sync.Mutex
	parked       []*Payload
	notBefore    []time.Time
}

// track makes p a page of the frontier, as a Source does.
func (s *parkingScheduler) track(p *Payload) *Payload {
	p.track = newTracker(context.Background(), nil, s)
	return p
}

func (s *parkingScheduler) Begin(*Payload, string) (func(), bool) { return func() {}, true }

func (s *parkingScheduler) Park(p *Payload, _ string, notBefore time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.parked = append(s.parked, p)
	s.notBefore = append(s.notBefore, notBefore)
}

// take returns the only page parked since the last call, and when it may
// resume.
func (s *parkingScheduler) take(t *testing.T) (*Payload, time.Time) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.parked) != 1 {
		t.Fatalf("%d pages parked, want 1", len(s.parked))
	}
	p, at := s.parked[0], s.notBefore[0]
	s.parked, s.notBefore = nil, nil
	return p, at
}

// With a scheduler, a page waiting for its retry is parked until the
// backoff (with its jitter) or a longer Retry-After has passed, not held
// in place, and resumes at the retry; a Retry-After beyond the cap ends
// the fetch as without one.
func TestFetcherRetryParks(t *testing.T) {
	cases := []struct {
		name       string
		retryAfter string
		jitter     float64
		wantWait   time.Duration // from the failed attempt to notBefore
	}{
		{name: "backoff, least jitter", jitter: 0, wantWait: 50 * time.Millisecond},
		{name: "backoff, most jitter", jitter: 0.999, wantWait: 100 * time.Millisecond},
		{name: "Retry-After", retryAfter: "2", wantWait: 2 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, n := scripted(t, c.retryAfter, 503, 200)
			sched := &parkingScheduler{}
			cfg := retryConfig(RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second})
			f := schedFetcher(t, cfg)
			f.jitter = func() float64 { return c.jitter }
			p := sched.track(NewPayload([16]byte{1}, u, time.Time{}))
			start := time.Now()
			if out, err := f.Process(context.Background(), p); out != nil || err != nil {
				t.Fatalf("Process = %v, %v; want the page parked", out, err)
			}
			end := time.Now()
			p.MarkAsProcessed()
			parked, at := sched.take(t)
			defer parked.MarkAsProcessed()
			if wait := at.Sub(start); wait < c.wantWait-2*time.Millisecond || at.Sub(end) > c.wantWait+2*time.Millisecond {
				t.Errorf("parked until %v after the attempt, want %v", wait, c.wantWait)
			}
			if el := time.Since(start); el >= c.wantWait && c.wantWait >= time.Second {
				t.Errorf("Process took %v: it waited in place", el)
			}
			out, err := f.Process(context.Background(), parked)
			if err != nil || out == nil || string(parked.Body) != "attempt 1" || n.Load() != 2 {
				t.Fatalf("resumed: %v, %v, body %q after %d requests (%v %v)", out, err, parked.Body, n.Load(), parked.outcome.reason, parked.outcome.err)
			}
		})
	}
	t.Run("Retry-After beyond the cap", func(t *testing.T) {
		u, n := scripted(t, "3600", 429, 200)
		sched := &parkingScheduler{}
		cfg := retryConfig(fastRetries)
		f := schedFetcher(t, cfg)
		p := sched.track(NewPayload([16]byte{1}, u, time.Time{}))
		defer p.MarkAsProcessed()
		if out, err := f.Process(context.Background(), p); out != nil || err != nil {
			t.Fatalf("Process = %v, %v", out, err)
		}
		if len(sched.parked) != 0 || p.outcome.reason != ReasonHTTPStatus || p.StatusCode != 429 || n.Load() != 1 {
			t.Fatalf("%d parked, reason %v status %d after %d requests; want the 429 settled", len(sched.parked), p.outcome.reason, p.StatusCode, n.Load())
		}
	})
}

// schedFetcher returns the fetch stage for cfg and closes its client's idle
// connections at the end of the test.
func schedFetcher(t *testing.T, cfg Config) *Fetcher {
	t.Helper()
	cfg, err := cfg.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := cfg.URLGetter.(*http.Client); ok {
		t.Cleanup(c.CloseIdleConnections)
	}
	f, err := NewFetcher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestTransientError(t *testing.T) {
	timeout := &net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&url.Error{Op: "Get", Err: syscall.ECONNRESET}, true},
		{&url.Error{Op: "Get", Err: syscall.ECONNREFUSED}, true},
		{&url.Error{Op: "Get", Err: io.EOF}, true},
		{&url.Error{Op: "Get", Err: timeout}, true},
		{&net.DNSError{Err: "server misbehaving", IsTemporary: true}, true},
		{&net.DNSError{Err: "no such host", IsNotFound: true}, false},
		{fmt.Errorf("dial: %w", privnet.ErrPrivateAddress), false},
		{Skip(ReasonRobots, nil), false},
		{context.Canceled, false},
		{fmt.Errorf("fetch: %w", context.Canceled), false},
		{errors.New("x509: certificate signed by unknown authority"), false},
	} {
		if got := transientError(c.err); got != c.want {
			t.Errorf("transientError(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"0":                             0,
		"120":                           2 * time.Minute,
		"Fri, 02 Jan 2026 03:04:35 GMT": 30 * time.Second,
		"Fri, 02 Jan 2026 03:00:00 GMT": 0,
	} {
		if got, ok := retryAfter(v, now); !ok || got != want {
			t.Errorf("retryAfter(%q) = %v, %v; want %v", v, got, ok, want)
		}
	}
	for _, v := range []string{"", "-1", "1.5", "soon", "99999999999"} {
		if got, ok := retryAfter(v, now); ok {
			t.Errorf("retryAfter(%q) = %v, want not understood", v, got)
		}
	}
}

func TestRetryBackoff(t *testing.T) {
	p := RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	if err := p.check("RetryPolicy"); err != nil {
		t.Fatal(err)
	}
	p = p.withDefaults()
	for _, c := range []struct {
		attempt  int
		jitter   float64
		min, max time.Duration
	}{
		{0, 0, 50 * time.Millisecond, 50 * time.Millisecond},
		{0, 0.999, 99 * time.Millisecond, 100 * time.Millisecond},
		{2, 0, 200 * time.Millisecond, 200 * time.Millisecond},
		{5, 0.5, 750 * time.Millisecond, 750 * time.Millisecond}, // capped at 1s
		{200, 0, 500 * time.Millisecond, 500 * time.Millisecond},
	} {
		if d := p.backoff(c.attempt, func() float64 { return c.jitter }); d < c.min || d > c.max {
			t.Errorf("backoff(%d) with jitter %v = %v, want in [%v, %v]", c.attempt, c.jitter, d, c.min, c.max)
		}
	}
}

// A RetryPolicy with negative delays, or a MaxDelay below its BaseDelay,
// is refused by the stage constructors.
func TestRetryPolicyInvalid(t *testing.T) {
	for _, p := range []RetryPolicy{
		{BaseDelay: -1},
		{MaxDelay: -time.Second},
		{MaxRetryAfter: -time.Second},
		{BaseDelay: time.Second, MaxDelay: time.Millisecond},
	} {
		cfg := loopbackConfig()
		cfg.Retry = p
		if _, err := NewFetcher(cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("NewFetcher with Retry %+v = %v, want ErrInvalidConfig", p, err)
		}
	}
}

// An attempt that times out by the transport's own limit (here, waiting
// for the response headers) is retried; the fetch's timeout is intact.
func TestFetcherRetryAttemptTimeout(t *testing.T) {
	var n atomic.Int32
	s, _ := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			<-r.Context().Done() // stall until the client gives up
			return
		}
		htmlPage(w, "ok")
	})
	cfg := retryConfig(fastRetries)
	c := NewURLGetter(cfg.PrivateNetworkDetector)
	c.Transport.(*http.Transport).ResponseHeaderTimeout = 100 * time.Millisecond
	cfg.URLGetter = c
	p, kept := fetchWith(t, cfg, s.URL)
	if !kept || p.StatusCode != 200 || string(p.Body) != "ok" || n.Load() != 2 {
		t.Fatalf("kept %v status %d body %q (%v) after %d requests", kept, p.StatusCode, p.Body, p.outcome.err, n.Load())
	}
}

// When the fetch's own timeout expires, the timeout is final.
func TestFetcherRetryFetchTimeoutNotRetried(t *testing.T) {
	var n atomic.Int32
	s, _ := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		<-r.Context().Done()
	})
	cfg := retryConfig(fastRetries)
	cfg.FetchTimeout = 100 * time.Millisecond
	p, kept := fetchWith(t, cfg, s.URL)
	if kept || p.outcome.reason != ReasonFetchError || !errors.Is(p.outcome.err, context.DeadlineExceeded) || n.Load() != 1 {
		t.Fatalf("kept %v reason %v (%v) after %d requests, want a DeadlineExceeded fetch error after 1", kept, p.outcome.reason, p.outcome.err, n.Load())
	}
}

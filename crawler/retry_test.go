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
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler/privnet"
)

// fastRetries keeps the tests quick: a millisecond of backoff.
var fastRetries = RetryPolicy{MaxRetries: 3, BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond}

// retryingClient returns a RetryingGetter around a loopback client, and
// closes its idle connections at the end of the test.
func retryingClient(t *testing.T, p RetryPolicy) *RetryingGetter {
	t.Helper()
	c := NewURLGetter(privnet.New(netipLoopback))
	t.Cleanup(c.CloseIdleConnections)
	g, err := NewRetryingGetter(c, p)
	if err != nil {
		t.Fatal(err)
	}
	return g
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

func get(t *testing.T, ctx context.Context, g URLGetter, rawURL string) (*http.Response, string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b), nil
}

func TestRetryingGetterStatuses(t *testing.T) {
	cases := []struct {
		name       string
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
		{name: "Retry-After beyond the cap not waited for", statuses: []int{429, 200}, retryAfter: "3600", want: 429, requests: 1},
		{name: "Retry-After as a past date", statuses: []int{503, 200}, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT", want: 200, requests: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, n := scripted(t, c.retryAfter, c.statuses...)
			g := retryingClient(t, fastRetries)
			start := time.Now()
			res, body, err := get(t, context.Background(), g, u)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != c.want || n.Load() != c.requests {
				t.Errorf("status %d after %d requests, want %d after %d", res.StatusCode, n.Load(), c.want, c.requests)
			}
			if want := fmt.Sprintf("attempt %d", c.requests-1); body != want {
				t.Errorf("body %q, want the last attempt's %q", body, want)
			}
			if el := time.Since(start); el < c.minElapsed {
				t.Errorf("took %v, want at least %v (Retry-After)", el, c.minElapsed)
			}
		})
	}
}

// A wait that would outlast the request's context is not started: the last
// response comes back at once.
func TestRetryingGetterGivesUpBeforeDeadline(t *testing.T) {
	u, n := scripted(t, "2", 503, 200)
	g := retryingClient(t, fastRetries)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	res, _, err := get(t, ctx, g, u)
	if err != nil || res.StatusCode != 503 || n.Load() != 1 {
		t.Fatalf("got %v, %v after %d requests; want the 503 alone", res, err, n.Load())
	}
	if el := time.Since(start); el > 900*time.Millisecond { // waiting would take the 2 s Retry-After
		t.Errorf("took %v: it waited", el)
	}
}

// Cancelling the request's context ends the wait at once.
func TestRetryingGetterCancelledWhileWaiting(t *testing.T) {
	u, n := scripted(t, "", 503)
	g := retryingClient(t, RetryPolicy{BaseDelay: time.Minute, MaxDelay: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for n.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, _, err := get(t, ctx, g, u)
	if !errors.Is(err, context.Canceled) || n.Load() != 1 {
		t.Fatalf("err %v after %d requests, want context.Canceled after 1", err, n.Load())
	}
}

// A connection closed before the response is transient; the request is
// sent again on a new connection.
func TestRetryingGetterConnectionReset(t *testing.T) {
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
	g := retryingClient(t, fastRetries)
	res, body, err := get(t, context.Background(), g, s.URL)
	if err != nil || res.StatusCode != 200 || body != "ok" || n.Load() != 2 {
		t.Fatalf("got %v, %q, %v after %d requests", res, body, err, n.Load())
	}
}

// Through the fetch stage: a 503 then a page is crawled, and a redirect is
// still followed (and checked) by the Fetcher, not by the client inside the
// RetryingGetter.
func TestFetcherWithRetryingGetter(t *testing.T) {
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
	cfg := loopbackConfig()
	cfg.URLGetter = retryingClient(t, fastRetries)
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
	g, err := NewRetryingGetter(http.DefaultClient, RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second})
	if err != nil {
		t.Fatal(err)
	}
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
		g.jitter = func() float64 { return c.jitter }
		if d := g.policy.backoff(c.attempt, g.jitter); d < c.min || d > c.max {
			t.Errorf("backoff(%d) with jitter %v = %v, want in [%v, %v]", c.attempt, c.jitter, d, c.min, c.max)
		}
	}
}

func TestNewRetryingGetterInvalid(t *testing.T) {
	for _, c := range []struct {
		next URLGetter
		p    RetryPolicy
	}{
		{nil, RetryPolicy{}},
		{http.DefaultClient, RetryPolicy{BaseDelay: -1}},
		{http.DefaultClient, RetryPolicy{MaxRetryAfter: -time.Second}},
		{http.DefaultClient, RetryPolicy{BaseDelay: time.Second, MaxDelay: time.Millisecond}},
	} {
		if _, err := NewRetryingGetter(c.next, c.p); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("NewRetryingGetter(%v, %+v) = %v, want ErrInvalidConfig", c.next, c.p, err)
		}
	}
}

// A request whose body cannot be replayed is sent once.
func TestRetryingGetterKeepsUnreplayableBody(t *testing.T) {
	u, n := scripted(t, "", 503, 200)
	g := retryingClient(t, fastRetries)
	req, err := http.NewRequest(http.MethodPost, u, io.NopCloser(io.LimitReader(neverEnding('x'), 3)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 503 || n.Load() != 1 {
		t.Fatalf("status %d after %d requests, want 503 after 1", res.StatusCode, n.Load())
	}
}

type neverEnding byte

func (b neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// An attempt that times out by the transport's own limit (here, waiting
// for the response headers) is retried; the request's context is intact.
func TestRetryingGetterAttemptTimeout(t *testing.T) {
	var n atomic.Int32
	s, _ := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			<-r.Context().Done() // stall until the client gives up
			return
		}
		htmlPage(w, "ok")
	})
	c := NewURLGetter(privnet.New(netipLoopback))
	defer c.CloseIdleConnections()
	c.Transport.(*http.Transport).ResponseHeaderTimeout = 100 * time.Millisecond
	g, err := NewRetryingGetter(c, fastRetries)
	if err != nil {
		t.Fatal(err)
	}
	res, body, err := get(t, context.Background(), g, s.URL)
	if err != nil || res.StatusCode != 200 || body != "ok" || n.Load() != 2 {
		t.Fatalf("got %v, %q, %v after %d requests", res, body, err, n.Load())
	}
}

// When the request's own context expires, the timeout is final.
func TestRetryingGetterContextTimeoutNotRetried(t *testing.T) {
	var n atomic.Int32
	s, _ := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		<-r.Context().Done()
	})
	g := retryingClient(t, fastRetries)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, err := get(t, ctx, g, s.URL)
	if !errors.Is(err, context.DeadlineExceeded) || n.Load() != 1 {
		t.Fatalf("err %v after %d requests, want DeadlineExceeded after 1", err, n.Load())
	}
}

package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/internal/ctxtime"
)

// Defaults for the RetryPolicy fields left zero.
const (
	// DefaultMaxRetries is how many times a request is sent again after a
	// transient failure: enough to ride out a dropped connection or a
	// server restarting, few enough that a broken host costs little.
	DefaultMaxRetries = 2
	// DefaultRetryBaseDelay is the backoff before the first retry; it
	// doubles for each further one.
	DefaultRetryBaseDelay = 500 * time.Millisecond
	// DefaultRetryMaxDelay caps the exponential backoff.
	DefaultRetryMaxDelay = 10 * time.Second
	// DefaultMaxRetryAfter is the longest Retry-After a RetryingGetter
	// waits for. A server asking for more is not retried: waiting would
	// hold a fetch worker (and the host's politeness slot) for that long,
	// and retrying earlier than asked is what gets a crawler blocked.
	DefaultMaxRetryAfter = 30 * time.Second
)

// RetryPolicy says when and how often a failed request is sent again: by
// the fetch stage (Config.Retry) and by a RetryingGetter. The zero value
// gives the defaults above.
//
// It is not pipeline.RetryPolicy, on purpose: that one retries any
// processor's error in place, counting attempts, with no notion of HTTP.
// A request is retried on its status and Retry-After, and the fetch stage
// must not wait for it in place: with a RequestScheduler it parks the page
// for the backoff and takes the host's turn again, which a processor-level
// retry cannot do. MaxRetries counts retries (as the command's --retries
// does), not attempts.
type RetryPolicy struct {
	// MaxRetries bounds the retries of one request (so it is sent at most
	// MaxRetries+1 times). Zero means DefaultMaxRetries; negative means
	// none.
	MaxRetries int
	// BaseDelay is the backoff before the first retry, doubled for each
	// further one up to MaxDelay. Each wait is drawn at random between half
	// the backoff and the whole of it, so that workers that failed together
	// do not come back together. Zero means DefaultRetryBaseDelay.
	BaseDelay time.Duration
	// MaxDelay caps the backoff. Zero means DefaultRetryMaxDelay.
	MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After honoured: a 429 or 503
	// asking for a longer wait is returned as it is, not retried. Zero
	// means DefaultMaxRetryAfter.
	MaxRetryAfter time.Duration
}

func (p RetryPolicy) withDefaults() (RetryPolicy, error) {
	switch {
	case p.BaseDelay < 0, p.MaxDelay < 0, p.MaxRetryAfter < 0:
		return p, fmt.Errorf("%w: negative RetryPolicy delay", ErrInvalidConfig)
	case p.MaxRetries == 0:
		p.MaxRetries = DefaultMaxRetries
	case p.MaxRetries < 0:
		p.MaxRetries = 0
	}
	if p.BaseDelay == 0 {
		p.BaseDelay = DefaultRetryBaseDelay
	}
	if p.MaxDelay == 0 {
		p.MaxDelay = DefaultRetryMaxDelay
	}
	if p.MaxDelay < p.BaseDelay {
		return p, fmt.Errorf("%w: RetryPolicy.MaxDelay %v < BaseDelay %v", ErrInvalidConfig, p.MaxDelay, p.BaseDelay)
	}
	if p.MaxRetryAfter == 0 {
		p.MaxRetryAfter = DefaultMaxRetryAfter
	}
	return p, nil
}

// RetryingGetter is a URLGetter that sends a request again, after a
// backoff, when it fails in a way that may pass: a timeout of the attempt
// (not of the request's context), a connection reset, refused or closed
// before the response, a DNS failure other than "no such host", and the
// statuses 429 Too Many Requests, 500, 502, 503, 504 and other 5xx except
// 501 Not Implemented and 505 HTTP Version Not Supported. A Retry-After
// header (seconds or an HTTP date) on a 429 or 5xx sets the wait, if it is
// longer than the backoff and at most RetryPolicy.MaxRetryAfter.
//
// Everything else is returned at once: other statuses, "no such host", a
// private address refused at dial time, TLS and URL errors, and errors
// carrying a Reason (SkipError). The wait honours the request's context:
// if the context would end before the next attempt is due, the last
// response or error is returned without waiting, since the attempt could
// not complete anyway. As the Fetcher's context covers the whole fetch,
// Config.FetchTimeout bounds the retries too.
//
// Only requests without a body, or with GetBody, are retried. It is safe
// for concurrent use.
//
// The crawl itself does not use it: the fetch stage retries with the same
// decision (RetryPolicy.Decide) as a step it can park between, so that no
// worker sleeps through a backoff. RetryingGetter is for requests outside
// the pipeline, where waiting in place is what the caller wants.
type RetryingGetter struct {
	next   URLGetter
	policy RetryPolicy
	// jitter returns a number in [0, 1); replaced in tests.
	jitter func() float64
}

// NewRetryingGetter returns a RetryingGetter sending requests through next
// with the policy p. It fails, with an error wrapping ErrInvalidConfig,
// for a nil next or negative delays.
func NewRetryingGetter(next URLGetter, p RetryPolicy) (*RetryingGetter, error) {
	if next == nil {
		return nil, fmt.Errorf("%w: RetryingGetter needs a URLGetter", ErrInvalidConfig)
	}
	p, err := p.withDefaults()
	if err != nil {
		return nil, err
	}
	return &RetryingGetter{next: next, policy: p, jitter: rand.Float64}, nil
}

// WithoutRedirects implements RedirectDisabler: the returned getter retries
// like g, through next's variant that does not follow redirects.
func (g *RetryingGetter) WithoutRedirects() URLGetter {
	c := *g
	c.next = withoutRedirects(g.next)
	return &c
}

// Do implements URLGetter.
func (g *RetryingGetter) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		r, err := g.attemptRequest(req, attempt)
		if err != nil {
			return nil, err
		}
		res, err := g.next.Do(r)
		if attempt >= g.policy.MaxRetries || !retriable(req) {
			return res, err
		}
		wait, retry := g.shouldRetry(ctx, res, err, attempt)
		if !retry {
			if cerr := ctx.Err(); cerr != nil && (err != nil || res.StatusCode >= 400) {
				// Cancelled while a failure was worth retrying: the
				// caller asked to stop, and is told so, not the failure.
				if res != nil {
					drain(res.Body)
				}
				return nil, cerr
			}
			return res, err
		}
		if res != nil {
			drain(res.Body) // before waiting: frees the connection
		}
		if err := waitToRetry(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// attemptRequest returns the request to send for an attempt: req itself
// first, then a copy with a fresh body.
func (g *RetryingGetter) attemptRequest(req *http.Request, attempt int) (*http.Request, error) {
	if attempt == 0 {
		return req, nil
	}
	r := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("crawler: retry %s: get body: %w", req.URL.Redacted(), err)
		}
		r.Body = body
	}
	return r, nil
}

// retriable reports whether req can be sent again.
func retriable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// shouldRetry decides whether the outcome of an attempt is worth another,
// and after how long. It says no when the wait would outlast ctx.
func (g *RetryingGetter) shouldRetry(ctx context.Context, res *http.Response, err error, attempt int) (time.Duration, bool) {
	if ctx.Err() != nil {
		return 0, false
	}
	wait, retry := decideRetry(g.policy, res, err, attempt, g.jitter)
	if !retry {
		return 0, false
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= wait {
		return 0, false
	}
	return wait, true
}

// Decide applies the policy to the outcome of a request, a response or an
// error, that failed on attempt (counted from 0): whether to try again, and
// after how long. It is the decision the fetch stage and RetryingGetter
// make, for callers with requests of their own (robots.txt, say).
func (p RetryPolicy) Decide(res *http.Response, err error, attempt int) (time.Duration, bool) {
	p, perr := p.withDefaults()
	if perr != nil || attempt >= p.MaxRetries {
		return 0, false
	}
	return decideRetry(p, res, err, attempt, rand.Float64)
}

// decideRetry is the retry policy shared by the Fetcher and RetryingGetter:
// whether the outcome of attempt (counted from 0) may pass on another try,
// and after how long (the backoff, or a longer Retry-After). A Retry-After
// beyond the policy's MaxRetryAfter is not waited for.
func decideRetry(p RetryPolicy, res *http.Response, err error, attempt int, jitter func() float64) (time.Duration, bool) {
	wait := p.backoff(attempt, jitter)
	switch {
	case err != nil:
		if !transientError(err) {
			return 0, false
		}
	case transientStatus(res.StatusCode):
		if after, ok := retryAfter(res.Header.Get("Retry-After"), time.Now()); ok {
			if after > p.MaxRetryAfter {
				return 0, false
			}
			wait = max(wait, after)
		}
	default:
		return 0, false
	}
	return wait, true
}

// backoff is the wait before retry number attempt+1: BaseDelay·2^attempt,
// capped at MaxDelay, with "equal jitter" (between half and all of it).
func (p RetryPolicy) backoff(attempt int, jitter func() float64) time.Duration {
	d := p.MaxDelay
	if attempt < 32 {
		d = min(p.BaseDelay<<attempt, p.MaxDelay)
	}
	half := d / 2
	return half + time.Duration(jitter()*float64(d-half))
}

// transientStatus reports whether a response status may change on its own.
func transientStatus(code int) bool {
	switch {
	case code == http.StatusTooManyRequests:
		return true
	case code == http.StatusNotImplemented, code == http.StatusHTTPVersionNotSupported:
		return false
	}
	return code >= 500 && code <= 599
}

// transientError reports whether a request error may go away by itself.
// Unknown errors are taken as permanent: retrying them would multiply the
// load a broken host receives for nothing. A timeout counts as transient
// even though net/http's match context.DeadlineExceeded: when it is the
// request's own context that expired, shouldRetry has already said no.
func transientError(err error) bool {
	var skip *SkipError
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.As(err, &skip), errors.Is(err, privnet.ErrPrivateAddress),
		errors.Is(err, context.Canceled):
		return false
	case errors.As(err, &dns):
		return !dns.IsNotFound && (dns.IsTimeout || dns.IsTemporary)
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return true
	case errors.As(err, &ne) && ne.Timeout():
		return true
	}
	return false
}

// retryAfter parses a Retry-After header: delay-seconds or an HTTP date
// (RFC 9110 10.2.3). A date in the past means no wait.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseUint(v, 10, 32); err == nil {
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

// waitToRetry waits d before another attempt, or until ctx ends: then it
// returns why ctx ended (its cause, which the caller of a fetch may have
// set), wrapped.
func waitToRetry(ctx context.Context, d time.Duration) error {
	if ctxtime.Sleep(ctx, d) != nil {
		return fmt.Errorf("crawler: wait to retry: %w", context.Cause(ctx))
	}
	return nil
}

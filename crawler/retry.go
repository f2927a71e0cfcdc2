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
	// DefaultMaxRetryAfter is the longest Retry-After a retry waits for.
	// A server asking for more is not retried: waiting would hold the page
	// (and, for a page with no Frontier, a fetch worker) for that long, and
	// retrying earlier than asked is what gets a crawler blocked.
	DefaultMaxRetryAfter = 30 * time.Second
)

// RetryPolicy says when and how often a failed request is sent again: by
// the fetch stage (FetchOptions.Retry), and by callers with requests of
// their own through Decide (package engine's robots.txt fetches). The zero
// value gives the defaults above; MaxRetries -1, no retries.
//
// A request is retried when it failed in a way that may pass: a timeout of
// the attempt (not of the fetch as a whole), a connection reset, refused
// or closed before the response, a DNS failure other than "no such host",
// and the statuses 429 Too Many Requests and 5xx except 501 Not
// Implemented and 505 HTTP Version Not Supported. A Retry-After header
// (seconds or an HTTP date) on a 429 or 5xx sets the wait if it is longer
// than the backoff and at most MaxRetryAfter. Everything else is final:
// other statuses, "no such host", a private address refused at dial time,
// TLS and URL errors, errors carrying a Reason (SkipError), a cancelled
// crawl. A page with no Frontier (see Payload.frontier) waits in place,
// and not for a retry that could not start before FetchOptions.FetchTimeout
// ends.
//
// It is not pipeline.RetryPolicy, on purpose: that one retries any
// processor's error in place, counting attempts, with no notion of HTTP.
// A request is retried on its status and Retry-After, and the fetch stage
// must not wait for it in place: it parks the page with its Frontier for
// the backoff and takes the host's turn again, which a processor-level
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

// check reports the first field of p that cannot be used, as an
// *OptionError whose Field is prefixed with field (the policy's path).
func (p RetryPolicy) check(field string) error {
	switch {
	case p.BaseDelay < 0:
		return negative(field+".BaseDelay", p.BaseDelay)
	case p.MaxDelay < 0:
		return negative(field+".MaxDelay", p.MaxDelay)
	case p.MaxRetryAfter < 0:
		return negative(field+".MaxRetryAfter", p.MaxRetryAfter)
	}
	if d := p.withDefaults(); d.MaxDelay < d.BaseDelay {
		return &OptionError{Field: field + ".MaxDelay", Value: d.MaxDelay, Problem: fmt.Sprintf("is below BaseDelay %v", d.BaseDelay)}
	}
	return nil
}

// withDefaults fills in the zero fields of p. A negative MaxRetries stays
// as it is (no retry: every attempt number is at least that), so that the
// policy keeps its meaning if defaults are filled in again.
func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxRetries == 0 {
		p.MaxRetries = DefaultMaxRetries
	}
	if p.BaseDelay == 0 {
		p.BaseDelay = DefaultRetryBaseDelay
	}
	if p.MaxDelay == 0 {
		p.MaxDelay = DefaultRetryMaxDelay
	}
	if p.MaxRetryAfter == 0 {
		p.MaxRetryAfter = DefaultMaxRetryAfter
	}
	return p
}

// Decide applies the policy to the outcome of a request, a response or an
// error, that failed on attempt (counted from 0): whether to try again, and
// after how long. It is the decision the fetch stage makes, for callers
// with requests of their own (robots.txt, say).
func (p RetryPolicy) Decide(res *http.Response, err error, attempt int) (time.Duration, bool) {
	if p.check("RetryPolicy") != nil {
		return 0, false
	}
	p = p.withDefaults()
	if attempt >= p.MaxRetries {
		return 0, false
	}
	return decideRetry(p, res, err, attempt, rand.Float64)
}

// decideRetry is the retry policy of the Fetcher and of Decide: whether
// the outcome of attempt (counted from 0) may pass on another try,
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
// request's own context that expired, Fetcher.shouldRetry has already
// said no.
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

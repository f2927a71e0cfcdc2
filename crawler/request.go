package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/linksrus/linksrus/crawler/privnet"
)

// This file: one request of a page's fetch: started through the page's
// Frontier (Begin, Park), sent, and retried under FetchOptions.Retry.

// request sends one request of the page's fetch (method to p.fs.target),
// retrying transient failures under the retry policy. The request starts
// only when the page's Frontier lets it (Begin): otherwise, and while a
// retry waits for its backoff, the page is parked rather than holding a
// worker. A page with no frontier (see Payload.frontier) waits in place.
func (f *Fetcher) request(ctx, fctx context.Context, p *Payload, method string) (*http.Response, fetchStatus) {
	host := hostOf(p.fs.target)
	fr := p.frontier()
	for {
		end := func() {}
		if fr != nil {
			var ok bool
			if end, ok = fr.Begin(p, host); !ok {
				f.park(p, host, time.Time{})
				return nil, parked
			}
		}
		// Validators go only with the page's own URL (the chain's first).
		var cond *Payload
		if f.conditional && len(p.fs.chain) == 1 && (p.ETag != "" || p.LastModified != "") {
			cond = p
		}
		p.fs.conditional = cond != nil
		res, sent, err := f.send(fctx, method, p.fs.target, cond)
		if err == nil {
			p.fs.sent = sent
			res.Body = &endOnClose{ReadCloser: res.Body, end: end}
		} else {
			end()
			if fr != nil && errors.Is(err, ErrWithdrawn) {
				f.park(p, host, time.Time{})
				return nil, parked
			}
		}
		wait, retry := f.shouldRetry(fctx, p, res, err)
		if !retry {
			if err != nil {
				f.failed(ctx, p, err)
				return nil, stopped
			}
			return res, answered
		}
		if res != nil {
			drain(res.Body) // frees the connection and the host's slot
		}
		p.fs.attempt++
		if fr != nil {
			f.park(p, host, time.Now().Add(wait))
			return nil, parked
		}
		if err := waitToRetry(fctx, wait); err != nil {
			f.failed(ctx, p, err)
			return nil, stopped
		}
	}
}

// send builds the request (GET or HEAD) for target, with the fetch's context, headers
// and decorator, and sends it. It also returns the request's URL as
// net/url writes it. cond, if not nil, is the page whose validators make
// the request conditional.
func (f *Fetcher) send(fctx context.Context, method, target string, cond *Payload) (*http.Response, string, error) {
	req, err := http.NewRequestWithContext(fctx, method, target, nil)
	if err != nil {
		return nil, "", Skip(ReasonInvalidURL, err)
	}
	req.Header.Set("User-Agent", f.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1")
	if cond != nil {
		if cond.ETag != "" {
			req.Header.Set("If-None-Match", cond.ETag)
		}
		if cond.LastModified != "" {
			req.Header.Set("If-Modified-Since", cond.LastModified)
		}
	}
	if f.opts.Recorder != nil {
		// Asked for here, net/http leaves a gzipped body as it came, to
		// be recorded so; the fetch decodes it (recordBody).
		req.Header.Set("Accept-Encoding", "gzip")
	}
	if f.opts.DecorateRequest != nil {
		// Called for every hop, so that the decorator sees the URL the
		// request goes to and can keep credentials to their own host.
		if err := f.opts.DecorateRequest(req); err != nil {
			return nil, "", fmt.Errorf("crawler: decorate request: %w", err)
		}
	}
	sent := req.URL.String() // before Do: a URLGetter may modify req
	res, err := f.getter.Do(req)
	if err != nil {
		return nil, "", err
	}
	if res.Body == nil {
		res.Body = http.NoBody // a URLGetter other than http.Client may leave it nil
	}
	return res, sent, nil
}

// shouldRetry applies the retry policy to the outcome of an attempt. When
// the attempt waits in place (no frontier), a wait that would outlast the
// fetch's deadline is not worth it.
func (f *Fetcher) shouldRetry(fctx context.Context, p *Payload, res *http.Response, err error) (time.Duration, bool) {
	if p.fs.attempt >= f.opts.Retry.MaxRetries {
		return 0, false
	}
	wait, retry := decideRetry(f.opts.Retry, res, err, p.fs.attempt, f.jitter)
	if !retry || fctx.Err() != nil {
		return 0, false
	}
	if deadline, ok := fctx.Deadline(); ok && p.frontier() == nil && time.Until(deadline) <= wait {
		return 0, false
	}
	return wait, true
}

// failed records a request error; when the crawl itself is being cancelled
// the page is reported as cancelled rather than as a fetch error.
func (f *Fetcher) failed(ctx context.Context, p *Payload, err error) {
	switch {
	case ctx.Err() != nil:
		p.skip(ReasonCanceled, err)
	case errors.Is(err, privnet.ErrPrivateAddress):
		p.skip(ReasonPrivateNetwork, err)
	default:
		p.skip(reasonOf(err, ReasonFetchError), err)
	}
}

// notModified reports whether res is a 304 answer to the page's own
// conditional request. A getter that follows redirects itself passes the
// validators on to the next hop (net/http copies the headers), where a 304
// says nothing about this page: that response's URL is not the one sent.
func notModified(res *http.Response, p *Payload) bool {
	if res.StatusCode != http.StatusNotModified || !p.fs.conditional {
		return false
	}
	return res.Request == nil || res.Request.URL == nil || res.Request.URL.String() == p.fs.sent
}

// endOnClose calls end once the body is closed or read to its end, which
// is when a host's slot is free again: the response has been read.
type endOnClose struct {
	io.ReadCloser
	once sync.Once
	end  func()
}

func (b *endOnClose) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.once.Do(b.end)
	}
	return n, err
}

func (b *endOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.end)
	return err
}

package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/linksrus/linksrus/crawler/urlnorm"
)

// This file: following redirects, every hop checked like the first URL.

// RedirectDisabler is implemented by URLGetters that can provide a variant
// of themselves that returns redirect responses (3xx with a Location) to the
// caller instead of following them, which the Fetcher needs to check every
// hop. Wrappers around another URLGetter implement it by wrapping the
// variant of the getter they wrap; see WithoutRedirects.
type RedirectDisabler interface {
	WithoutRedirects() URLGetter
}

// WithoutRedirects returns a URLGetter that sends requests through g but
// does not follow redirects: for an *http.Client, a shallow copy (sharing
// its Transport, so its connection pool) whose CheckRedirect returns
// http.ErrUseLastResponse; for a RedirectDisabler, its WithoutRedirects;
// otherwise g itself, which may or may not follow them.
func WithoutRedirects(g URLGetter) URLGetter {
	return withoutRedirects(g)
}

func withoutRedirects(g URLGetter) URLGetter {
	switch g := g.(type) {
	case *http.Client:
		c := *g
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		return &c
	case RedirectDisabler:
		return g.WithoutRedirects()
	}
	return g
}

// maxDrain is how much of a redirect's body is read before closing it, so
// that a keep-alive connection can be reused; a longer body costs a new
// connection rather than the time to read it.
const maxDrain = 4 << 10

// drain reads a little of body and closes it.
func drain(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, maxDrain)
	_ = body.Close()
}

// follow sends the requests for the page from where its fetch state stands
// (p.fs.target) and follows redirects, checking every hop. It returns the
// final response, with p.FinalURL set; or stopped after recording on p why
// the fetch ended; or parked if the next request must wait for its host.
// fctx bounds the requests of this pass; ctx is the crawl's, to tell a
// cancelled crawl from a timeout.
func (f *Fetcher) follow(ctx, fctx context.Context, p *Payload) (*http.Response, fetchStatus) {
	for {
		if p.fs.recheck {
			// Parked at a hop whose gate could not decide: it must now.
			u, err := url.Parse(p.fs.target)
			if err != nil {
				p.skip(ReasonInvalidURL, err)
				return nil, stopped
			}
			if reason, err := f.check(ctx, p, u, true); reason != ReasonCrawled {
				if p.frontier() != nil && errors.Is(err, ErrNotReady) {
					f.park(p, u.Host, time.Time{})
					return nil, parked
				}
				p.skip(reason, redirectError(p.fs.target, err))
				return nil, stopped
			}
			p.fs.recheck = false
		}
		if f.opts.HeadFirst && !p.fs.headDone {
			res, st := f.request(ctx, fctx, p, http.MethodHead)
			if st != answered {
				return nil, st
			}
			if notModified(res, p) {
				// Unchanged on the HEAD's word: no GET at all.
				p.FinalURL = p.fs.target
				return res, answered
			}
			if headSaysNotHTML(res) {
				// Non-HTML on the HEAD's word: skipped without a GET.
				p.FinalURL = p.fs.target
				return res, answered
			}
			// Anything else (HTML, no type, a redirect, 405 from servers
			// without HEAD) is settled by the GET.
			drain(res.Body)
			p.fs.headDone = true
		}
		res, st := f.request(ctx, fctx, p, http.MethodGet)
		if st != answered {
			return nil, st
		}
		at := p.fs.target
		// Compared in net/url's spelling, which may differ from target's.
		if res.Request != nil && res.Request.URL != nil && res.Request.URL.String() != p.fs.sent {
			// The getter followed redirects itself: the hops in between
			// went unchecked, but the page at least must pass.
			final := res.Request.URL
			if reason, err := f.check(ctx, p, final, true); reason != ReasonCrawled {
				drain(res.Body)
				p.skip(reason, redirectError(final.String(), err))
				return nil, stopped
			}
			at = final.String()
		}
		loc := redirectLocation(res)
		if loc == "" {
			p.FinalURL = at
			return res, answered
		}
		p.StatusCode = res.StatusCode
		if !f.record(ctx, p, res, nil, BodySkipped) {
			drain(res.Body)
			return nil, stopped
		}
		drain(res.Body)

		next, reason, err := f.nextHop(ctx, p, at, loc)
		if reason != ReasonCrawled {
			if p.frontier() != nil && errors.Is(err, ErrNotReady) {
				// A gate (robots.txt of the hop's host) cannot decide yet:
				// resume at the hop once it can.
				p.fs.chain = append(p.fs.chain, next)
				p.fs.target, p.fs.attempt, p.fs.headDone = next, 0, false
				p.fs.recheck = true
				f.park(p, hostOf(next), time.Time{})
				return nil, parked
			}
			p.skip(reason, err)
			return nil, stopped
		}
		p.fs.chain = append(p.fs.chain, next)
		p.fs.target, p.fs.attempt, p.fs.headDone = next, 0, false
	}
}

// nextHop resolves a redirect's Location against the URL that answered it
// and decides whether p follows it (p.fs.chain holds the canonical URLs
// requested so far). When a check refuses the target, the target is
// returned with the reason.
func (f *Fetcher) nextHop(ctx context.Context, p *Payload, from, loc string) (string, Reason, error) {
	chain := p.fs.chain
	// The Location is read as browsers read it, and the target requested,
	// checked and compared in canonical form, as the links of pages are:
	// gates (scope patterns, say) see one spelling.
	next, err := urlnorm.Resolve(from, loc, urlnorm.Options{})
	if err != nil {
		return "", ReasonInvalidURL, fmt.Errorf("crawler: redirect from %q: bad Location %q: %w", from, loc, err)
	}
	u, err := url.Parse(next)
	if err != nil {
		return "", ReasonInvalidURL, fmt.Errorf("crawler: redirect from %q: %w", from, err)
	}
	if slices.Contains(chain, next) {
		return "", ReasonRedirectLoop, fmt.Errorf("crawler: redirect loop: %s -> %s", strings.Join(chain, " -> "), next)
	}
	if limit := max(f.opts.MaxRedirects, 0); len(chain) > limit {
		return "", ReasonTooManyRedirects, fmt.Errorf("crawler: redirect to %q: stopped after %d redirects", next, limit)
	}
	if reason, err := f.check(ctx, p, u, true); reason != ReasonCrawled {
		return next, reason, redirectError(next, err)
	}
	return next, ReasonCrawled, nil
}

// redirectError says which redirect target was refused; err, the reason's
// detail, may be nil.
func redirectError(target string, err error) error {
	if err == nil {
		return fmt.Errorf("crawler: redirect to %q refused", target)
	}
	return fmt.Errorf("crawler: redirect to %q: %w", target, err)
}

// redirectLocation returns the Location of a response that redirects, or
// "" for any other response. 300 Multiple Choices and 304 Not Modified
// carry no single target to follow.
func redirectLocation(res *http.Response) string {
	switch res.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return res.Header.Get("Location")
	}
	return ""
}

// canonical is the form in which redirect chains are compared: the
// normalised URL, or the URL itself if it cannot be normalised (it is then
// refused by the checks anyway).
func canonical(raw string) string {
	if n, err := urlnorm.Normalize(raw, urlnorm.Options{}); err == nil {
		return n
	}
	return raw
}

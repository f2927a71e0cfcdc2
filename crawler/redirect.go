package crawler

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/linksrus/linksrus/crawler/urlnorm"
)

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

// follow sends the request for p.URL and follows redirects, checking every
// hop. It returns the final response, with p.FinalURL set, or nil after
// recording on p why the fetch stopped. fctx bounds the requests; ctx is
// the crawl's, to tell a cancelled crawl from a timeout.
func (f *Fetcher) follow(ctx, fctx context.Context, p *Payload) *http.Response {
	target := p.URL
	// chain holds the canonical form of every URL requested, to detect
	// loops however the Location headers spell them.
	chain := []string{canonical(target)}
	for {
		res, sent, err := f.send(fctx, target)
		if err != nil {
			f.failed(ctx, p, err)
			return nil
		}
		at := target
		// Compared in net/url's spelling, which may differ from target's.
		if res.Request != nil && res.Request.URL != nil && res.Request.URL.String() != sent {
			// The getter followed redirects itself: the hops in between
			// went unchecked, but the page at least must pass.
			final := res.Request.URL
			if reason, err := f.check(ctx, final); reason != ReasonCrawled {
				drain(res.Body)
				p.skip(reason, redirectError(final.String(), err))
				return nil
			}
			at = final.String()
		}
		loc := redirectLocation(res)
		if loc == "" {
			p.FinalURL = at
			return res
		}
		p.StatusCode = res.StatusCode
		drain(res.Body)

		next, reason, err := f.nextHop(ctx, at, loc, chain)
		if reason != ReasonCrawled {
			p.skip(reason, err)
			return nil
		}
		chain = append(chain, next)
		target = next
	}
}

// nextHop resolves a redirect's Location against the URL that answered it
// and decides whether to follow it; chain is the canonical URLs requested
// so far.
func (f *Fetcher) nextHop(ctx context.Context, from, loc string, chain []string) (string, Reason, error) {
	base, err := url.Parse(from)
	if err != nil {
		return "", ReasonInvalidURL, fmt.Errorf("crawler: redirect from %q: %w", from, err)
	}
	ref, err := url.Parse(cleanHref(loc))
	if err != nil {
		return "", ReasonFetchError, fmt.Errorf("crawler: redirect from %q: bad Location %q: %w", from, loc, err)
	}
	// The target is requested, checked and compared in canonical form, as
	// the links of pages are: gates (scope patterns, say) see one spelling.
	next, err := urlnorm.NormalizeURL(base.ResolveReference(ref), urlnorm.Options{})
	if err != nil {
		return "", ReasonInvalidURL, fmt.Errorf("crawler: redirect from %q: %w", from, err)
	}
	u, err := url.Parse(next)
	if err != nil {
		return "", ReasonInvalidURL, fmt.Errorf("crawler: redirect from %q: %w", from, err)
	}
	if slices.Contains(chain, next) {
		return "", ReasonRedirectLoop, fmt.Errorf("crawler: redirect loop: %s -> %s", strings.Join(chain, " -> "), next)
	}
	if len(chain) > f.maxRedirects {
		return "", ReasonTooManyRedirects, fmt.Errorf("crawler: redirect to %q: stopped after %d redirects", next, f.maxRedirects)
	}
	if reason, err := f.check(ctx, u); reason != ReasonCrawled {
		return "", reason, redirectError(next, err)
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

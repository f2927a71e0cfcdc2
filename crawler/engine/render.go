package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/render"
)

// pageRenderer renders a run's pages in its browser, every request the
// browser makes fetched by browserRequests under the run's rules.
type pageRenderer struct {
	browser  *render.Renderer
	requests render.Fetcher
	// stopped ends with Run.Stop: the renders under way are abandoned,
	// their pages stored as served, where waiting for them could take
	// each its whole budget (Rendering.Timeout).
	stopped context.Context
}

// errStopping is why a render was abandoned by Run.Stop.
var errStopping = errors.New("abandoned: the crawl is stopping")

// Render implements crawler.Renderer. The body is the crawl's, decoded to
// UTF-8, which the browser is told.
func (p pageRenderer) Render(ctx context.Context, pageURL string, body []byte) (*crawler.Rendered, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(p.stopped, func() { cancel(errStopping) })()
	pg, err := p.browser.Render(ctx, pageURL, body, "text/html; charset=utf-8", p.requests)
	if err != nil && errors.Is(context.Cause(ctx), errStopping) {
		return nil, fmt.Errorf("render %s: %w", pageURL, errStopping)
	}
	if err != nil {
		return nil, err
	}
	return &crawler.Rendered{HTML: pg.HTML, Moved: pg.Moved, Settled: pg.Settled, Fetched: pg.Fetched, Refused: pg.Refused}, nil
}

// browserRequests fetches the requests the browser makes while it renders
// a page (scripts, styles, API calls, frames: images, fonts and media the
// browser does not ask it for, see package render) as the run fetches
// its own: through the run's getter (the private-network guard at dial
// time), a slot of the host's in the run's scheduler (its limit and
// delay, and in a shared crawl only while this process leases the host),
// and what the host's robots.txt allows. What it refuses fails in the
// browser; the page renders without it.
type browserRequests struct {
	hosts     *hostFetcher
	robots    *robotsTable // nil when robots.txt is ignored
	detector  crawler.PrivateNetworkDetector
	userAgent string
	decorate  func(*http.Request) error
	maxBytes  int64
}

// errOnlyReads refuses what a browser sends other than GET and HEAD: a
// crawl reads sites, it does not post to them.
var errOnlyReads = errors.New("a crawl only reads (GET, HEAD)")

// Fetch implements render.Fetcher.
func (b *browserRequests) Fetch(ctx context.Context, req *http.Request) (*render.Response, error) {
	u := req.URL
	if err := b.check(ctx, req); err != nil {
		return nil, fmt.Errorf("engine: browser's request %s %s: %w", req.Method, u, err)
	}
	req = req.WithContext(ctx)
	req.Header.Set("User-Agent", b.userAgent)
	get := b.hosts.getterFor(u.Host)
	get.decorate = b.decorate
	res, err := get.Do(req)
	if err != nil {
		return nil, fmt.Errorf("engine: browser's request %s: %w", u, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, b.maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("engine: browser's request %s: read: %w", u, err)
	}
	if int64(len(body)) > b.maxBytes {
		return nil, fmt.Errorf("engine: browser's request %s: body over %d bytes", u, b.maxBytes)
	}
	return &render.Response{StatusCode: res.StatusCode, Header: res.Header, Body: body}, nil
}

// check refuses a request the run would not make: not a read, not
// http(s), to a private host by its name, or disallowed by (or with an
// unreachable) robots.txt.
func (b *browserRequests) check(ctx context.Context, req *http.Request) error {
	u := req.URL
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		return errOnlyReads
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return errors.New("not an http(s) URL")
	}
	private, err := b.detector.IsPrivate(u.Hostname())
	switch {
	case err != nil:
		return err
	case private:
		return crawler.Skip(crawler.ReasonPrivateNetwork, errors.New("private host"))
	}
	if b.robots == nil {
		return nil
	}
	e, err := b.robots.wait(ctx, u)
	switch {
	case err != nil:
		return err
	case e.err != nil:
		return crawler.Skip(crawler.ReasonRobotsUnreachable, e.err)
	case !e.rules.AllowedURL(u):
		return crawler.Skip(crawler.ReasonRobots, fmt.Errorf("disallowed by robots.txt (%s)", e.basis))
	}
	return nil
}

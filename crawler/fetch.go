package crawler

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"time"

	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/pipeline"
)

// Fetcher is the fetch stage: it requests each payload's URL and keeps the
// body if it is an HTML page of acceptable size, decoded to UTF-8. A URL
// that is skipped or fails is dropped from the pipeline with its reason
// recorded for the page's Outcome; the Fetcher itself never fails the crawl
// except for a payload of the wrong type.
//
// Before the request, in order: the URL must parse with an http or https
// scheme; its path must not name non-HTML content; its host must not be
// private (judged without DNS by the PrivateNetworkDetector); every Gate
// must admit it. After the response, from its headers alone: the status
// must be 2xx, the Content-Type HTML (or missing, then sniffed from the
// body), the Content-Length within bounds. The body is then read, at most
// FetchOptions.MaxBodyBytes of it, all within FetchOptions.FetchTimeout.
//
// The Fetcher follows redirects itself, so that every hop passes the same
// checks as the first URL: scheme, extension, private network and every
// Gate (robots.txt and scope among them). A hop that fails them stops the
// fetch with the hop's reason; a redirect back to a URL of the same chain
// stops it with ReasonRedirectLoop, and one more redirect than
// FetchOptions.MaxRedirects with ReasonTooManyRedirects. For that it needs
// a URLGetter that returns 3xx responses instead of following them: an
// *http.Client is used through a copy whose CheckRedirect returns
// http.ErrUseLastResponse, and a getter implementing RedirectDisabler is
// asked for such a variant. Any other getter may follow redirects on its
// own; the Fetcher then checks at least the URL it ended at.
//
// A page with validators from its last retrieval (Payload.ETag,
// Payload.LastModified) is requested conditionally (If-None-Match,
// If-Modified-Since) when the crawl's graph can refresh edges
// (EdgeRefresher): a 304 answer ends the fetch with Payload.Unchanged set
// and nothing downloaded, and the page goes on to the stores, which only
// refresh its times. Validators go only with the request for the page's
// own URL (the first, HEAD or GET): they belong to it, not to a redirect's
// target. A 304 to a request without them is an HTTP status like any other.
//
// The Fetcher also makes the HEAD of FetchOptions.HeadFirst and the
// retries of FetchOptions.Retry itself, so that each request is a step it
// can stop at: every URL of a fetch is admitted by the page's Frontier
// (Admit), every request starts only when the frontier's Begin allows it,
// and a page whose next request must wait (its host busy or in its delay,
// a retry's backoff, a frontier not ready to decide) is parked with the
// frontier and resumed later at that step, instead of holding a worker.
type Fetcher struct {
	opts        FetchOptions // with defaults filled in
	getter      URLGetter    // opts.URLGetter, not following redirects
	gates       []Gate
	conditional bool // send the pages' validators (the graph can refresh edges)
	jitter      func() float64
}

// NewFetcher returns the fetch stage for cfg (with defaults filled in).
func NewFetcher(cfg Config) (*Fetcher, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return newFetcher(cfg), nil
}

// newFetcher returns the fetch stage for a Config with defaults filled in.
func newFetcher(cfg Config) *Fetcher {
	f := &Fetcher{
		opts:   cfg.FetchOptions,
		getter: withoutRedirects(cfg.URLGetter),
		gates:  cfg.Gates,
		jitter: rand.Float64,
	}
	_, f.conditional = refresherOf(cfg.Graph)
	return f
}

// Process implements pipeline.Processor.
func (f *Fetcher) Process(ctx context.Context, pp pipeline.Payload) (pipeline.Payload, error) {
	p, err := asPayload(pp)
	if err != nil {
		return nil, fmt.Errorf("crawler: fetch: %w", err)
	}
	if !p.fs.begun && !f.admit(ctx, p) {
		return nil, nil
	}
	if f.unchangedBySite(p) {
		// Retrieved since it last changed, by the site's word: no
		// request at all, and the stores refresh its times as for a 304.
		p.Unchanged = true
		p.FinalURL = p.URL
		p.FetchedAt = time.Now()
		p.outcome.duration = time.Since(p.fs.start)
		return p, nil
	}
	if !f.fetch(ctx, p) {
		if err := p.fs.recordErr; err != nil {
			return nil, err
		}
		return nil, nil
	}
	return p, nil
}

// admit runs the checks that need no request and starts the page's fetch
// state. It reports false if the page goes no further in this pass (it was
// skipped, or parked until a gate can decide).
func (f *Fetcher) admit(ctx context.Context, p *Payload) bool {
	u, err := url.Parse(p.URL)
	if err != nil {
		p.skip(ReasonInvalidURL, err)
		return false
	}
	reason, err := f.check(ctx, p, u, false)
	if reason != ReasonCrawled {
		if p.frontier() != nil && errors.Is(err, ErrNotReady) {
			f.park(p, u.Host, time.Time{})
			return false
		}
		p.skip(reason, err)
		return false
	}
	p.fs = fetchState{begun: true, target: p.URL, chain: []string{canonical(p.URL)}, start: time.Now()}
	return true
}

// check decides whether p may be requested at u, its own URL or (redirect)
// the target of a redirect: the crawler's own checks, then Config.Gates,
// then the page's frontier. It returns ReasonCrawled if so, otherwise the
// reason to report and the error behind it, if any.
func (f *Fetcher) check(ctx context.Context, p *Payload, u *url.URL, redirect bool) (Reason, error) {
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return ReasonInvalidURL, fmt.Errorf("crawler: %q is not an absolute http(s) URL", u.Redacted())
	}
	if hasNonHTMLExtension(u.Path) {
		return ReasonExtension, nil
	}
	private, err := f.opts.PrivateNetworkDetector.IsPrivate(u.Hostname())
	if err != nil {
		return ReasonInvalidURL, err
	}
	if private {
		return ReasonPrivateNetwork, fmt.Errorf("crawler: host %q: %w", u.Hostname(), privnet.ErrPrivateAddress)
	}
	for _, g := range f.gates {
		if err := g.Admit(ctx, u); err != nil {
			return reasonOf(err, ReasonGate), err
		}
	}
	if fr := p.frontier(); fr != nil {
		if err := fr.Admit(ctx, p, u, redirect); err != nil {
			return reasonOf(err, ReasonGate), err
		}
	}
	return ReasonCrawled, nil
}

// park hands the page back to its frontier, to resume its fetch when host
// can take its next request; the payload given to the pipeline is dropped
// without an outcome.
func (f *Fetcher) park(p *Payload, host string, notBefore time.Time) {
	p.frontier().Park(p.detach(), host, notBefore)
}

// fetch sends the page's requests, following redirects, and reads the body
// into p. It reports false if the page goes no further in this pass.
func (f *Fetcher) fetch(ctx context.Context, p *Payload) bool {
	fctx, cancel := context.WithTimeout(ctx, f.opts.FetchTimeout)
	defer cancel()

	res, st := f.follow(ctx, fctx, p)
	if st == parked {
		return false
	}
	defer func() { p.outcome.duration = time.Since(p.fs.start) }()
	if res == nil {
		return false
	}
	defer res.Body.Close()

	p.FetchedAt = time.Now()
	p.StatusCode = res.StatusCode
	p.ContentType = res.Header.Get("Content-Type")
	p.Language = contentLanguage(res.Header)
	if notModified(res, p) {
		// RFC 9110, 15.4.5: a 304 carries the validators a 200 would
		// have; where it leaves one out, the stored one still holds.
		if v, ok := validator(res.Header, "ETag"); ok {
			p.ETag = v
		}
		if v, ok := validator(res.Header, "Last-Modified"); ok {
			p.LastModified = v
		}
		p.Unchanged = true
		p.Body = p.Body[:0]
		// Archived as it came: a 304 has no body to miss.
		return f.record(ctx, p, res, nil, BodyWhole)
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		p.skip(ReasonHTTPStatus, nil)
		f.record(ctx, p, res, nil, BodySkipped)
		return false
	}
	if p.ContentType != "" && !isHTML(p.ContentType) {
		p.skip(ReasonContentType, nil)
		f.record(ctx, p, res, nil, BodySkipped)
		return false
	}
	if res.ContentLength > f.opts.MaxBodyBytes {
		p.skip(ReasonTooLarge, fmt.Errorf("crawler: Content-Length %d > %d", res.ContentLength, f.opts.MaxBodyBytes))
		f.record(ctx, p, res, nil, BodyTruncated)
		return false
	}
	p.NoIndex, p.noFollow = robotsDirectives(res.Header.Values("X-Robots-Tag"))

	var err error
	p.Body, err = readBounded(p.bodyBuffer(), res.Body, f.opts.MaxBodyBytes+1, res.ContentLength)
	// The response is read: the host's slot is free for the next request
	// while this page is decoded and parsed.
	res.Body.Close()
	p.outcome.bytes = int64(len(p.Body))
	if err != nil {
		if p.frontier() != nil && errors.Is(err, ErrWithdrawn) {
			f.park(p, hostOf(p.fs.target), time.Time{})
			return false
		}
		f.failed(ctx, p, fmt.Errorf("crawler: read body: %w", err))
		return false
	}
	// The new retrieval's validators replace the old ones, absent ones
	// too: a server that stopped sending them gets plain requests. Only
	// once the body is read: a page parked half read still carries the
	// validators of the body the stores have.
	p.ETag, _ = validator(res.Header, "ETag")
	p.LastModified, _ = validator(res.Header, "Last-Modified")
	if f.opts.Recorder != nil && !f.recordBody(ctx, p, res) {
		return false
	}
	return p.acceptBody(f.opts.MaxBodyBytes)
}

// unchangedBySite reports whether a page about to be requested for the
// first time in this fetch need not be: the site says (Payload.ModifiedAt)
// it last changed before its retrieval, and the graph can refresh its
// edges (the condition for conditional requests too).
func (f *Fetcher) unchangedBySite(p *Payload) bool {
	return f.conditional && p.fs.attempt == 0 && len(p.fs.chain) == 1 && !p.fs.headDone && p.fs.sent == "" &&
		!p.ModifiedAt.IsZero() && !p.RetrievedAt.IsZero() && p.ModifiedAt.Before(p.RetrievedAt)
}

// ErrNotReady is returned (wrapped) by a Gate or a Frontier's Admit that
// cannot decide about a URL yet, for instance because its host's
// robots.txt is still being fetched. The page is parked with its Frontier
// under the URL's host and tried again when the frontier hands it back; a
// LinkFrontier, which has nothing to wait for, and a page without a
// frontier (see Payload.frontier) skip it with ReasonGate.
var ErrNotReady = errors.New("crawler: gate not ready for this host yet")

// ErrWithdrawn is wrapped by the error a URLGetter returns, for a request
// or for reading its response, when the host was taken back from the
// crawl while the request ran: in a shared crawl (package engine), its
// lease on the host ended, and another process may now send the host
// requests. Not a failure of the page: the fetch parks it with its
// Frontier, which may hand it out again or, the host being another's now,
// abandon it (Payload.Abandon). A page without a frontier fails with it.
var ErrWithdrawn = errors.New("crawler: the host was withdrawn from this crawl while the request ran")

// fetchState is how far a page's fetch has got, kept on the payload so
// that a parked page resumes where it stopped.
type fetchState struct {
	begun    bool
	target   string   // the URL of the next request
	sent     string   // target as net/url spelt the last request's URL
	chain    []string // canonical URLs requested so far, for loop detection
	attempt  int      // retries already made of the current request
	headDone bool     // the HEAD of target has been answered (HeadFirst)
	recheck  bool     // target is a hop whose checks must run again on resume
	// conditional: the last request carried the page's validators, so a
	// 304 answer means the page is unchanged.
	conditional bool
	start       time.Time
	// recordErr is the Recorder's error, which stops the crawl.
	recordErr error
}

// detach moves p's identity, fetch state and tracking to a new payload
// from the pool, for the page's Frontier to keep while p itself is dropped
// by the stage (and recycled without being reported).
func (p *Payload) detach() *Payload {
	q := payloadPool.Get().(*Payload)
	q.LinkID, q.URL, q.RetrievedAt = p.LinkID, p.URL, p.RetrievedAt
	q.ETag, q.LastModified, q.ModifiedAt = p.ETag, p.LastModified, p.ModifiedAt
	q.StatusCode = p.StatusCode
	q.outcome = p.outcome
	q.fs = p.fs
	q.track = p.track
	p.fs = fetchState{}
	p.track = nil
	return q
}

// fetchStatus says how a step of a fetch ended.
type fetchStatus uint8

const (
	answered fetchStatus = iota // a response to use
	stopped                     // the page goes no further; p says why
	parked                      // handed back to the frontier
)

// hostOf returns the host (with port) of a URL, "" if it does not parse.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

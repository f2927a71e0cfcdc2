package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html/charset"

	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/linkgraph"
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
// can stop at: with a Config.Scheduler, every request starts only when the
// scheduler's Begin allows it, and a page whose next request must wait
// (its host busy or in its delay, a retry's backoff, a gate not ready) is
// parked with the scheduler and resumed later at that step, instead of
// holding a worker.
type Fetcher struct {
	opts        FetchOptions // with defaults filled in
	getter      URLGetter    // opts.URLGetter, not following redirects
	gates       []Gate
	sched       RequestScheduler
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
		sched:  cfg.Scheduler,
		jitter: rand.Float64,
	}
	_, f.conditional = cfg.Graph.(EdgeRefresher)
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
	reason, err := f.check(ctx, u, false)
	if reason != ReasonCrawled {
		if f.sched != nil && errors.Is(err, ErrNotReady) {
			f.park(p, u.Host, time.Time{})
			return false
		}
		p.skip(reason, err)
		return false
	}
	p.fs = fetchState{begun: true, target: p.URL, chain: []string{canonical(p.URL)}, start: time.Now()}
	return true
}

// park hands the page back to the scheduler, to resume its fetch when host
// can take its next request; the payload given to the pipeline is dropped
// without an outcome.
func (f *Fetcher) park(p *Payload, host string, notBefore time.Time) {
	f.sched.Park(p.detach(), host, notBefore)
}

// check decides whether u may be requested, as the first URL of a fetch or
// as the target of a redirect (hop): it returns ReasonCrawled if so,
// otherwise the reason to report and the error behind it, if any.
func (f *Fetcher) check(ctx context.Context, u *url.URL, hop bool) (Reason, error) {
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
	if hop {
		for _, g := range f.gates {
			if rg, ok := g.(RedirectGate); ok {
				if err := rg.AdmitRedirect(ctx, u); err != nil {
					return reasonOf(err, ReasonGate), err
				}
			}
		}
	}
	return ReasonCrawled, nil
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
	// The new retrieval's validators replace the old ones, absent ones
	// too: a server that stopped sending them gets plain requests.
	p.ETag, _ = validator(res.Header, "ETag")
	p.LastModified, _ = validator(res.Header, "Last-Modified")

	var err error
	p.Body, err = readBounded(p.bodyBuffer(), res.Body, f.opts.MaxBodyBytes+1, res.ContentLength)
	// The response is read: the host's slot is free for the next request
	// while this page is decoded and parsed.
	res.Body.Close()
	p.outcome.bytes = int64(len(p.Body))
	if err != nil {
		f.failed(ctx, p, fmt.Errorf("crawler: read body: %w", err))
		return false
	}
	if f.opts.Recorder != nil && !f.recordBody(ctx, p, res) {
		return false
	}
	return p.acceptBody(f.opts.MaxBodyBytes)
}

// acceptBody makes the checks of a page's body, decoded of its
// Content-Encoding, that the crawl and an import both make: within
// maxBody, HTML (sniffed, as a browser would, when the response had no
// Content-Type), and decodable to UTF-8, which it then is. It reports
// false, with the reason recorded, if the page goes no further.
func (p *Payload) acceptBody(maxBody int64) bool {
	if int64(len(p.Body)) > maxBody {
		p.skip(ReasonTooLarge, fmt.Errorf("crawler: body exceeds %d bytes", maxBody))
		return false
	}
	if p.ContentType == "" {
		if sniffed := http.DetectContentType(p.Body); !isHTML(sniffed) {
			p.skip(ReasonContentType, nil)
			return false
		}
	}
	if err := p.decodeCharset(); err != nil {
		p.skip(ReasonCharset, err)
		return false
	}
	return true
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

// unchangedBySite reports whether a page about to be requested for the
// first time in this fetch need not be: the site says (Payload.ModifiedAt)
// it last changed before its retrieval, and the graph can refresh its
// edges (the condition for conditional requests too).
func (f *Fetcher) unchangedBySite(p *Payload) bool {
	return f.conditional && p.fs.attempt == 0 && len(p.fs.chain) == 1 && !p.fs.headDone && p.fs.sent == "" &&
		!p.ModifiedAt.IsZero() && !p.RetrievedAt.IsZero() && p.ModifiedAt.Before(p.RetrievedAt)
}

// validator returns a response's validator header if it is one the graph
// can store (see linkgraph.MaxValidatorLength): a value that cannot be
// stored is treated as absent, which only costs a full request next time.
func validator(h http.Header, name string) (string, bool) {
	v := h.Get(name)
	if v == "" || len(v) > linkgraph.MaxValidatorLength || !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
		return "", false
	}
	return v, true
}

// headSaysNotHTML reports whether a HEAD's answer settles that the resource
// is not HTML: a 2xx with a Content-Type that is not HTML. Anything else
// (HTML, no type, a redirect, an error such as 405 from servers without
// HEAD) is for the GET to settle.
func headSaysNotHTML(res *http.Response) bool {
	ct := res.Header.Get("Content-Type")
	return res.StatusCode >= 200 && res.StatusCode <= 299 && ct != "" && !isHTML(ct)
}

// isHTML reports whether a Content-Type names an HTML document.
func isHTML(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.TrimSpace(mt)
	return strings.EqualFold(mt, "text/html") || strings.EqualFold(mt, "application/xhtml+xml")
}

// readBounded appends r's content to buf until EOF or until limit bytes
// have been read, reusing buf's capacity; sizeHint (a Content-Length, or -1)
// lets it grow buf once instead of doubling.
func readBounded(buf []byte, r io.Reader, limit, sizeHint int64) ([]byte, error) {
	if sizeHint > 0 && sizeHint < limit && int64(cap(buf)) < sizeHint+1 {
		buf = make([]byte, 0, sizeHint+1) // +1 to see EOF without growing
	}
	for int64(len(buf)) < limit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		end := min(int64(cap(buf)), limit)
		n, err := r.Read(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// decodeCharset converts p.Body to UTF-8, following the HTML standard's
// encoding sniffing (BOM, Content-Type charset, <meta> prescan).
func (p *Payload) decodeCharset() error {
	enc, name, certain := charset.DetermineEncoding(p.Body, p.ContentType)
	switch {
	case name == "utf-8":
		return nil
	case !certain && utf8.Valid(p.Body):
		// Nothing declared the encoding and the page is valid UTF-8 (or
		// plain ASCII): the standard's windows-1252 guess would only mangle
		// it. Real text in a legacy encoding is almost never valid UTF-8.
		return nil
	case asciiCompatible(name) && isASCII(p.Body):
		return nil // nothing to convert: no copy
	}
	decoded, err := enc.NewDecoder().Bytes(p.Body)
	if err != nil {
		return fmt.Errorf("crawler: decode %s: %w", name, err)
	}
	p.Body = decoded
	return nil
}

// asciiCompatible reports whether an encoding maps the bytes 0x00-0x7F to
// ASCII, so that pure-ASCII content needs no decoding.
func asciiCompatible(name string) bool {
	return name == "windows-1252" || strings.HasPrefix(name, "iso-8859-") || strings.HasPrefix(name, "windows-125")
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// robotsDirectives reads X-Robots-Tag headers. Directives scoped to a named
// crawler ("googlebot: noindex") are not ours and are ignored.
func robotsDirectives(values []string) (noIndex, noFollow bool) {
	for _, v := range values {
		if strings.Contains(v, ":") {
			continue
		}
		ni, nf := parseRobotsContent(v)
		noIndex, noFollow = noIndex || ni, noFollow || nf
	}
	return noIndex, noFollow
}

// parseRobotsContent parses a robots directive list such as
// "noindex, nofollow" or "none".
func parseRobotsContent(v string) (noIndex, noFollow bool) {
	for d := range strings.SplitSeq(v, ",") {
		switch strings.ToLower(strings.TrimSpace(d)) {
		case "noindex":
			noIndex = true
		case "nofollow":
			noFollow = true
		case "none":
			noIndex, noFollow = true, true
		}
	}
	return noIndex, noFollow
}

package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Recorder keeps the responses of a crawl as the servers sent them, to
// archive them (WARCRecorder writes them to WARC files). The Fetcher calls
// it once for every GET response it reads: each redirect hop and the
// page's final response, whether or not the page goes on to be parsed.
// HEAD requests (FetchOptions.HeadFirst) and responses that a retry replaces are
// not recorded, nor a response whose body failed to arrive.
//
// Record is called from the fetch workers, concurrently, and must be safe
// for that. An error stops the crawl: an archive that silently misses
// pages is worse than a crawl that stops.
type Recorder interface {
	Record(ctx context.Context, x *Exchange) error
}

// BodyCut says how much of a response's body an Exchange holds.
type BodyCut uint8

const (
	// BodyWhole: Body is the whole body, as sent.
	BodyWhole BodyCut = iota
	// BodyTruncated: Body is the first FetchOptions.MaxBodyBytes bytes of a
	// longer body, or nothing when the Content-Length alone exceeded them
	// (WARC-Truncated: length).
	BodyTruncated
	// BodySkipped: the body was not read, the headers having settled the
	// page (an error status, a redirect, a type other than HTML).
	BodySkipped
)

// Exchange is one request and its response, for a Recorder.
type Exchange struct {
	// URL is the URL requested.
	URL string
	// Request is the request as the crawler built it (the header map of
	// net/http: the transport adds Host and may add others), or nil if
	// the URLGetter did not set Response.Request.
	Request *http.Request
	// Response is the response; its Body has been read (or not, see Cut)
	// and must not be used. Its Header is Go's map, in canonical case:
	// the order and case the server used are lost.
	Response *http.Response
	// Body is what was read of the body, as sent: with its
	// Content-Encoding (the Fetcher asks for gzip itself while a Recorder
	// is set, so that net/http does not decode it), without a
	// Transfer-Encoding. Only valid during Record: copy what is kept.
	Body []byte
	Cut  BodyCut
	// FetchedAt is when the response arrived.
	FetchedAt time.Time
}

// record hands a GET response of p's fetch to the Recorder, if there is
// one. It reports false, with the page stopped and the crawl's error set,
// if the Recorder fails.
func (f *Fetcher) record(ctx context.Context, p *Payload, res *http.Response, body []byte, cut BodyCut) bool {
	if f.opts.Recorder == nil || res.Request != nil && res.Request.Method != http.MethodGet {
		return true
	}
	// The URL in the crawler's spelling, the one the graph gets, unless
	// the getter followed redirects on its own.
	x := Exchange{URL: p.fs.target, Request: res.Request, Response: res, Body: body, Cut: cut, FetchedAt: time.Now()}
	if res.Request != nil && res.Request.URL != nil && res.Request.URL.String() != p.fs.sent {
		x.URL = res.Request.URL.String()
	}
	if err := f.opts.Recorder.Record(ctx, &x); err != nil {
		err = fmt.Errorf("crawler: record %s: %w", x.URL, err)
		p.skip(ReasonFetchError, err)
		p.fs.recordErr = err
		return false
	}
	return true
}

// recordBody records the body just read into p.Body and leaves the body
// to parse in p.Body: decoded if it came gzipped (the Fetcher asked for it
// itself, so net/http left it as it was). The decoded body is read to
// MaxBodyBytes+1 at most, so that a gzip bomb ends as too large. It
// reports false if the page goes no further.
func (f *Fetcher) recordBody(ctx context.Context, p *Payload, res *http.Response) bool {
	raw, cut := p.Body, BodyWhole
	if int64(len(raw)) > f.opts.MaxBodyBytes {
		raw, cut = raw[:f.opts.MaxBodyBytes], BodyTruncated
	}
	if !f.record(ctx, p, res, raw, cut) {
		return false
	}
	if cut != BodyWhole || res.Uncompressed {
		return true // too large anyway, or decoded by net/http
	}
	decoded, err := decodeContent(res.Header.Get("Content-Encoding"), p.Body, f.opts.MaxBodyBytes+1)
	if err != nil {
		p.skip(ReasonFetchError, fmt.Errorf("crawler: decode body: %w", err))
		return false
	}
	p.Body = decoded
	return true
}

// decodeContent undoes a gzip Content-Encoding of body, reading at most
// limit bytes of the result; any other coding is left as it is, as
// net/http leaves it.
func decodeContent(coding string, body []byte, limit int64) ([]byte, error) {
	switch strings.ToLower(strings.TrimSpace(coding)) {
	case "gzip", "x-gzip":
	default:
		return body, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	out, err := readBounded(nil, zr, limit, -1)
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	return out, nil
}

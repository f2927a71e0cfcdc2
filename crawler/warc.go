package crawler

import (
	"context"
	"iter"

	"github.com/linksrus/linksrus/archive/warc"
)

// WARCRecorder returns a Recorder that archives a crawl with w: every
// Exchange is written as a response record and a request record (see
// package archive/warc). A body cut at MaxBodyBytes, or not read for a
// Content-Length over it (BodyTruncated), is written as far as it was
// read, with "WARC-Truncated: length"; a response the Fetcher settled on
// its headers alone (BodySkipped: an error status, a redirect, a type
// other than HTML) as its headers without a body, with "WARC-Truncated:
// unspecified". No record claims a body it does not have.
func WARCRecorder(w *warc.Writer) Recorder { return warcRecorder{w} }

type warcRecorder struct{ w *warc.Writer }

// warcTruncation is how each BodyCut is told in a WARC record.
var warcTruncation = [...]warc.Truncation{
	BodyWhole:     "",
	BodyTruncated: warc.TruncatedLength,
	BodySkipped:   warc.TruncatedUnspecified,
}

// Record implements Recorder.
func (r warcRecorder) Record(ctx context.Context, x *Exchange) error {
	if x == nil || x.Response == nil {
		return r.w.Record(ctx, nil) // the Writer's error for an exchange without a response
	}
	out := &warc.Exchange{URL: x.URL, Date: x.FetchedAt}
	if req := x.Request; req != nil {
		out.Request = &warc.Request{Method: req.Method, URL: req.URL, Header: req.Header}
	}
	res := x.Response
	out.Response = &warc.Response{Proto: res.Proto, StatusCode: res.StatusCode, Status: res.Status, Header: res.Header, Body: x.Body}
	if int(x.Cut) < len(warcTruncation) {
		out.Response.Truncated = warcTruncation[x.Cut]
	}
	return r.w.Record(ctx, out)
}

// WARCPages turns the responses read from WARC files (warc.ReadDir,
// warc.Read) into the pages Import takes.
func WARCPages(responses iter.Seq2[*warc.Exchange, error]) iter.Seq2[*FetchedPage, error] {
	return func(yield func(*FetchedPage, error) bool) {
		for x, err := range responses {
			var page *FetchedPage // nil, skipped by Import, for an exchange without a response
			if x != nil && x.Response != nil {
				res := x.Response
				page = &FetchedPage{URL: x.URL, StatusCode: res.StatusCode, Header: res.Header, Body: res.Body,
					Truncated: res.Truncated != "", FetchedAt: x.Date}
			}
			if !yield(page, err) {
				return
			}
		}
	}
}

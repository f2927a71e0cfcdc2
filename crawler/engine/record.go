package engine

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/linksrus/linksrus/crawler"
)

// recordingGetter hands the responses of the engine's own requests
// (robots.txt, sitemaps) to the run's Recorder, as the fetch stage does
// for pages, so that an archive holds everything the crawl asked for.
// The body is kept as the reader reads it, up to limit bytes, and recorded
// when the reader reaches its end (whole) or closes it early (cut).
type recordingGetter struct {
	next  crawler.URLGetter
	rec   crawler.Recorder
	limit int64
}

// Do implements crawler.URLGetter.
func (g *recordingGetter) Do(req *http.Request) (*http.Response, error) {
	res, err := g.next.Do(req)
	if err != nil || res == nil {
		return res, err
	}
	if res.Request == nil {
		res.Request = req
	}
	res.Body = &recordingBody{ReadCloser: res.Body, g: g, res: res, at: time.Now()}
	return res, nil
}

// recordingBody tees a response body into a buffer of at most g.limit
// bytes and records the exchange once.
type recordingBody struct {
	io.ReadCloser
	g     *recordingGetter
	res   *http.Response
	at    time.Time
	buf   bytes.Buffer
	total int64 // bytes read, kept or not

	once sync.Once
	err  error
}

func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if keep := b.g.limit - int64(b.buf.Len()); keep > 0 {
		b.buf.Write(p[:min(int64(n), keep)])
	}
	b.total += int64(n)
	if errors.Is(err, io.EOF) {
		// The end of the body: recorded now, and a failure to record is
		// the reader's, as it is the crawl's for pages.
		if rerr := b.record(b.total <= b.g.limit); rerr != nil {
			return n, rerr
		}
	}
	return n, err
}

func (b *recordingBody) Close() error {
	err := b.ReadCloser.Close()
	// Closed before its end (the reader had what it needed, or gave up):
	// what was read is recorded as cut, unless there was nothing to read.
	if rerr := b.record(b.total == 0 && b.res.ContentLength == 0); err == nil {
		err = rerr
	}
	return err
}

func (b *recordingBody) record(whole bool) error {
	b.once.Do(func() {
		cut := crawler.BodyWhole
		if !whole {
			cut = crawler.BodyTruncated
		}
		x := crawler.Exchange{
			URL: b.res.Request.URL.String(), Request: b.res.Request, Response: b.res,
			Body: b.buf.Bytes(), Cut: cut, FetchedAt: b.at,
		}
		b.err = b.g.rec.Record(b.res.Request.Context(), &x)
	})
	return b.err
}

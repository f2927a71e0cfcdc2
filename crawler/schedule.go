package crawler

import (
	"context"
	"errors"
	"io"
	"net/url"
	"sync"
	"time"

	"github.com/google/uuid"
)

// RequestScheduler spaces the requests of a crawl per host. The Fetcher
// asks it right before it sends every request, whatever the request is for
// (a page's GET, a HEAD before it, each redirect hop, each retry), so that
// channel buffers and batches elsewhere in the pipeline cannot bring two
// requests to a host closer together than the scheduler allows. When a
// host cannot take a request now, the Fetcher hands the page back to the
// scheduler instead of waiting: no fetch worker ever sleeps on a host's
// delay, a Retry-After or a busy host while other hosts have work.
//
// Package engine's crawl implements it; most callers never do.
type RequestScheduler interface {
	// Begin is called right before a request to host (a URL's Host, with
	// the port if any) is sent on behalf of the page id. It returns end,
	// called once the response has been read (or the request failed), or
	// ok == false if host cannot take a request now.
	Begin(id uuid.UUID, host string) (end func(), ok bool)

	// Park takes back a page whose next request, to host, cannot be sent
	// now, or not before notBefore (a retry's backoff; zero for as soon as
	// the host allows). The scheduler owns p from then on and returns it to
	// the crawl through its link iterator (see ResumingIterator), when its
	// fetch resumes where it stopped.
	Park(p *Payload, host string, notBefore time.Time)
}

// ResumingIterator is a link iterator that can also return pages parked by
// a RequestScheduler. After Next reports true, a non-nil Resumed is the
// payload to send down the pipeline in place of a new page for Link.
type ResumingIterator interface {
	Resumed() *Payload
}

// ModifiedIterator is a link iterator that may know, besides the graph,
// when the current link's page last changed: a sitemap's <lastmod>, say.
// The Source puts it in Payload.ModifiedAt.
type ModifiedIterator interface {
	// ModifiedAt returns when the current link's page last changed, by
	// the site's word; zero if unknown.
	ModifiedAt() time.Time
}

// ContextIterator is a link iterator whose Next may block (a frontier
// waiting for work) and can be interrupted: the Source calls NextContext
// with the pipeline's context instead of Next, so that a crawl cancelled
// while the iterator waits returns at once.
type ContextIterator interface {
	NextContext(ctx context.Context) bool
}

// ErrNotReady is returned (wrapped) by a Gate that cannot decide about a
// URL yet, for instance because its host's robots.txt is still being
// fetched. With a RequestScheduler the page is parked under the URL's host
// and tried again when the scheduler hands it back; without one, the URL is
// skipped with ReasonGate.
var ErrNotReady = errors.New("crawler: gate not ready for this host yet")

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
// from the pool, for a RequestScheduler to keep while p itself is dropped
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

// hostOf returns the host (with port) of a URL, "" if it does not parse.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
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

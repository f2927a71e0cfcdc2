package crawler

import (
	"container/heap"
	"context"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
)

// LinkFrontier is the Frontier of Crawl: it hands out the links of a
// linkgraph.LinkIterator, each once, in the iterator's order. It paces
// nothing (every request may start at once) and follows no link: a
// caller who brings their own frontier gets one pass over their links.
// A page parked by the fetch stage for a retry (its backoff or
// Retry-After) is handed out again once it is due, before any new link, so
// that no fetch worker sleeps; a page whose gate (Config.Gates) cannot
// decide yet is skipped with ReasonGate, since nothing tells when it
// could.
//
// Close reports the pages still parked, as cancelled; the caller keeps
// ownership of the iterator and closes it.
type LinkFrontier struct {
	it linkgraph.LinkIterator

	mu       sync.Mutex
	parked   parkedPages
	inFlight int  // pages handed out and not done
	drained  bool // the iterator has no more links
	changed  chan struct{}
}

var _ Frontier = (*LinkFrontier)(nil)

// NewLinkFrontier returns a LinkFrontier over it.
func NewLinkFrontier(it linkgraph.LinkIterator) *LinkFrontier {
	return &LinkFrontier{it: it, changed: make(chan struct{})}
}

// Next implements Frontier: a parked page that is due, else the next link
// of the iterator; once the iterator is drained it waits for the pages in
// flight, which may still be parked, and returns (nil, nil) when none is
// left. The iterator's error ends the crawl.
func (f *LinkFrontier) Next(ctx context.Context, starved func()) (*Payload, error) {
	for {
		if ctx.Err() != nil {
			return nil, nil
		}
		f.mu.Lock()
		if p := f.parked.popDue(time.Now()); p != nil {
			f.mu.Unlock()
			return p, nil
		}
		if !f.drained {
			f.mu.Unlock()
			if !f.it.Next() {
				if err := f.it.Error(); err != nil {
					return nil, err
				}
				f.mu.Lock()
				f.drained = true
				f.mu.Unlock()
				continue
			}
			l := f.it.Link()
			p := NewPayload(l.ID, l.URL, l.RetrievedAt)
			p.ETag, p.LastModified = l.ETag, l.LastModified
			f.mu.Lock()
			f.inFlight++
			f.mu.Unlock()
			return p, nil
		}
		if f.inFlight == 0 {
			f.mu.Unlock()
			return nil, nil
		}
		// Drained, with pages in flight: one may be parked, or come back.
		wait, changed := f.parked.untilDue(time.Now()), f.changed
		f.mu.Unlock()
		starved()
		var (
			t     *time.Timer
			timer <-chan time.Time
		)
		if wait >= 0 {
			t = time.NewTimer(wait)
			timer = t.C
		}
		select {
		case <-ctx.Done():
		case <-changed:
		case <-timer:
		}
		if t != nil {
			t.Stop()
		}
	}
}

// Admit implements Frontier: every URL may be fetched (Config.Gates are
// where a Crawl's own policies go).
func (f *LinkFrontier) Admit(context.Context, *Payload, *url.URL, bool) error { return nil }

// Begin implements Frontier: every request may start at once.
func (f *LinkFrontier) Begin(*Payload, string) (func(), bool) { return func() {}, true }

// errGateNotReady is the detail of a page a LinkFrontier skips because a
// gate could not decide about it.
var errGateNotReady = fmt.Errorf("a gate could not decide about the URL: %w", ErrNotReady)

// Park implements Frontier.
func (f *LinkFrontier) Park(p *Payload, _ string, notBefore time.Time) {
	if notBefore.IsZero() {
		// Begin never refuses here: only a gate that cannot decide parks
		// a page without a time.
		p.skip(ReasonGate, errGateNotReady)
		p.MarkAsProcessed()
		return
	}
	f.mu.Lock()
	heap.Push(&f.parked, parkedPage{p: p, due: notBefore})
	f.wakeLocked()
	f.mu.Unlock()
}

// KnownLinkID implements Frontier: a LinkFrontier knows no link's ID.
func (f *LinkFrontier) KnownLinkID(string) (uuid.UUID, bool) { return uuid.Nil, false }

// Found implements Frontier: a LinkFrontier follows no link.
func (f *LinkFrontier) Found(context.Context, []Found) error { return nil }

// Done implements Frontier.
func (f *LinkFrontier) Done(Outcome) {
	f.mu.Lock()
	f.inFlight--
	f.wakeLocked()
	f.mu.Unlock()
}

// Close reports the pages still parked (the crawl ended before they were
// due) as cancelled.
func (f *LinkFrontier) Close() {
	f.mu.Lock()
	pages := f.parked
	f.parked = nil
	f.mu.Unlock()
	for _, pp := range pages {
		pp.p.MarkAsProcessed()
	}
}

// wakeLocked ends a wait in Next. f.mu must be held.
func (f *LinkFrontier) wakeLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// parkedPages is a heap of parked pages, the earliest due first.
type parkedPages []parkedPage

type parkedPage struct {
	p   *Payload
	due time.Time
}

func (h parkedPages) Len() int           { return len(h) }
func (h parkedPages) Less(i, j int) bool { return h[i].due.Before(h[j].due) }
func (h parkedPages) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *parkedPages) Push(x any)        { *h = append(*h, x.(parkedPage)) }
func (h *parkedPages) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = parkedPage{}
	*h = old[:len(old)-1]
	return x
}

// popDue removes and returns the earliest page due by now, if any.
func (h *parkedPages) popDue(now time.Time) *Payload {
	if len(*h) == 0 || (*h)[0].due.After(now) {
		return nil
	}
	return heap.Pop(h).(parkedPage).p
}

// untilDue returns how long until the earliest page is due, or -1 if none
// is parked.
func (h parkedPages) untilDue(now time.Time) time.Duration {
	if len(h) == 0 {
		return -1
	}
	return max(h[0].due.Sub(now), 0)
}

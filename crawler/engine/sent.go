package engine

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/politeness"
)

// sentReporter is the URLGetter every request of a run goes through (the
// crawler's and the engine's own). It tells the run's scheduler the moment
// each request is written to its connection (politeness.Scheduler.Sent),
// from which the host's delay is counted: a request started by the
// scheduler can reach the wire much later (a dial, a goroutine paused on a
// loaded machine), and counted from its start, the delay would let the
// next request follow it closer than the delay, to a server's eyes.
//
// It also runs each request under its host's fence (workSource.fence),
// when the run's work source has one: a request still being sent, or whose
// body is still being read, when the fence ends (a shared crawl's lease on
// the host may have ended) is cut there, with an error wrapping
// crawler.ErrWithdrawn. So no request of this process runs on a host past
// its lease, and the host's next owner need not wait for one.
type sentReporter struct {
	next  crawler.URLGetter
	sched *politeness.Scheduler[item]
	// fence returns the context a request to host must end with, or nil.
	fence func(host string) context.Context
}

func (g sentReporter) Do(req *http.Request) (*http.Response, error) {
	host := req.URL.Host
	var term context.Context
	if g.fence != nil {
		term = g.fence(host)
	}
	if term == nil {
		return g.next.Do(req.WithContext(g.traced(req.Context(), host)))
	}
	if term.Err() != nil {
		return nil, context.Cause(term)
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	stop := context.AfterFunc(term, func() { cancel(context.Cause(term)) })
	res, err := g.next.Do(req.WithContext(g.traced(ctx, host)))
	if err != nil {
		stop()
		cancel(nil)
		if term.Err() != nil {
			return nil, fmt.Errorf("%w: %w", context.Cause(term), err)
		}
		return nil, err
	}
	res.Body = &fencedBody{ReadCloser: res.Body, term: term, done: func() { stop(); cancel(nil) }}
	return res, nil
}

// traced returns ctx with the trace that reports the request's write.
func (g sentReporter) traced(ctx context.Context, host string) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { g.sched.Sent(host) }})
}

// WithoutRedirects implements crawler.RedirectDisabler: the crawler and
// the engine follow redirects themselves, hop by hop.
func (g sentReporter) WithoutRedirects() crawler.URLGetter {
	return sentReporter{next: crawler.WithoutRedirects(g.next), sched: g.sched, fence: g.fence}
}

// fencedBody is the body of a response read under a host's fence: a read
// that fails because the fence ended says so (crawler.ErrWithdrawn), and
// closing it lets go of the fence.
type fencedBody struct {
	io.ReadCloser
	term context.Context
	once sync.Once
	done func()
}

func (b *fencedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && b.term.Err() != nil {
		err = fmt.Errorf("%w: %w", context.Cause(b.term), err)
	}
	return n, err
}

func (b *fencedBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.done)
	return err
}

package engine

import (
	"net/http"
	"net/http/httptrace"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/politeness"
)

// sentReporter is the URLGetter every request of a run goes through (the
// crawler's and the engine's own): it tells the run's scheduler the moment
// each request is written to its connection (politeness.Scheduler.Sent),
// from which the host's delay is counted. A request started by the
// scheduler can reach the wire much later (a dial, a goroutine paused on
// a loaded machine): counted from its start, the delay would let the next
// request follow it closer than the delay, to a server's eyes.
type sentReporter struct {
	next  crawler.URLGetter
	sched *politeness.Scheduler[item]
}

func (g sentReporter) Do(req *http.Request) (*http.Response, error) {
	host := req.URL.Host
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { g.sched.Sent(host) }}
	return g.next.Do(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
}

// WithoutRedirects implements crawler.RedirectDisabler: the crawler and
// the engine follow redirects themselves, hop by hop.
func (g sentReporter) WithoutRedirects() crawler.URLGetter {
	return sentReporter{next: crawler.WithoutRedirects(g.next), sched: g.sched}
}

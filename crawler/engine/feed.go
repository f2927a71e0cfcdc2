package engine

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/scope"
	"github.com/linksrus/linksrus/linkgraph"
)

// feed is the run's side of the crawler's Frontier contract: each method
// hands over to the part of the run that does it, so that the one value
// the crawler sees plays no role itself.
//
//	Next         the frontier: the next page whose host can take a request
//	Admit        the scope, the shared crawl's hosts, robots.txt, then the
//	             claim of a redirect's target
//	Begin, Park  the frontier's per-host pacing
//	KnownLinkID  discovery's caches of links claimed or out of scope
//	Found        discovery: links in scope are queued
//	Done         the run's outcome: counters, seeds, OnOutcome, the
//	             frontier's page done
type feed struct{ r *Run }

var _ crawler.Frontier = feed{}

// Next implements crawler.Frontier.
func (fd feed) Next(ctx context.Context, starved func()) (*crawler.Payload, error) {
	return fd.r.frontier.next(ctx, starved)
}

// Admit implements crawler.Frontier: every URL must be in the run's scope
// (at no particular depth: that is for discovery, which knows the depth)
// and allowed by robots.txt. A page's own URL was claimed when it was
// queued; a redirect's target must, in a shared crawl, be on a host this
// process holds, and is then claimed, so that a page reached both through
// a redirect and by a link of its own is fetched once.
func (fd feed) Admit(ctx context.Context, p *crawler.Payload, u *url.URL, redirect bool) error {
	r := fd.r
	if reason := r.scope.Check(u, 0); reason != scope.InScope {
		return crawler.Skip(crawler.ReasonScope, fmt.Errorf("%w: %s", crawler.ErrOutOfScope, reason))
	}
	if held, _ := r.frontier.work.may(u.Host); redirect && !held {
		// Before robots.txt: a host this process does not hold gets no
		// request from it, robots.txt included.
		return r.redirectElsewhere(ctx, u)
	}
	if rt := r.frontier.robots; rt != nil {
		if err := rt.admit(u); err != nil {
			return err
		}
	}
	if redirect && !r.frontier.claim(u.String()) {
		return crawler.Skip(crawler.ReasonDuplicate, fmt.Errorf("redirect to %s, which this crawl fetches on its own", u))
	}
	if redirect {
		// Until its request starts, the page keeps the target's host
		// from looking idle (and being given up under it).
		r.frontier.hop(p.LinkID, u.Host)
	}
	return nil
}

// Begin implements crawler.Frontier.
func (fd feed) Begin(p *crawler.Payload, host string) (func(), bool) {
	return fd.r.frontier.begin(p.LinkID, host)
}

// Park implements crawler.Frontier.
func (fd feed) Park(p *crawler.Payload, host string, notBefore time.Time) {
	fd.r.frontier.park(p, host, notBefore)
}

// KnownLinkID implements crawler.Frontier.
func (fd feed) KnownLinkID(url string) (uuid.UUID, bool) {
	return fd.r.discovery.knownLinkID(url)
}

// Found implements crawler.Frontier.
func (fd feed) Found(ctx context.Context, found []crawler.Found) error {
	return fd.r.discovery.found(ctx, found)
}

// Done implements crawler.Frontier.
func (fd feed) Done(o crawler.Outcome) { fd.r.outcome(o) }

// redirectElsewhere keeps a redirect from sending a request to a host this
// process does not hold: the target is queued for its host's owner
// instead, and the redirecting page is skipped as a duplicate, as it is
// when the target is crawled on its own in a run of one process.
func (r *Run) redirectElsewhere(ctx context.Context, u *url.URL) error {
	f := r.frontier
	if !f.claim(u.String()) {
		return crawler.Skip(crawler.ReasonDuplicate, fmt.Errorf("redirect to %s, which this crawl fetches on its own", u))
	}
	l := &linkgraph.Link{URL: u.String()}
	if err := r.opts.Graph.UpsertLinks([]*linkgraph.Link{l}); err != nil {
		return fmt.Errorf("engine: store redirect target: %w", err)
	}
	if l.RetrievedAt.Before(r.cutoff) {
		if err := f.placeClaimed(*l, u.Host); err != nil {
			return fmt.Errorf("engine: queue redirect target: %w", err)
		}
		if err := f.work.flush(ctx); err != nil {
			return err
		}
	}
	return crawler.Skip(crawler.ReasonDuplicate, fmt.Errorf("redirect to %s, queued for the process that holds %s", u, u.Host))
}

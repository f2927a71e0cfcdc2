package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler/politeness"
	"github.com/linksrus/linksrus/linkgraph"
)

// frontier is the queue of links one run of the crawl command still has to
// fetch. It is the linkgraph.LinkIterator handed to crawler.Crawl: Next
// blocks until a link may be fetched, and reports the end of the crawl once
// nothing is queued and no page is in flight any more, since only a page in
// flight can still add links.
//
// The queue itself is a politeness.Scheduler, so Next hands out a link only
// when its host has a free request slot and its delay has elapsed, and a
// slow host never holds the fetch workers while other hosts have work. The
// host's slot is released once the page is stored in the graph (fetched),
// or when its outcome is reported (done) if it never gets there.
//
// Each link is queued at most once per run (seen), which is also what makes
// a failed page tried once per run rather than again and again.
type frontier struct {
	ctx   context.Context
	sched *politeness.Scheduler[queuedLink]

	mu       sync.Mutex
	queued   int
	inFlight int
	handed   int // links handed out by Next
	maxPages int // 0: no limit
	closed   bool
	seen     map[uuid.UUID]struct{}
	leases   map[uuid.UUID]*politeness.Lease[queuedLink]
	depth    map[uuid.UUID]int // depth of the links in flight
	cur      linkgraph.Link
	// interruptWait, while Next blocks in the scheduler, ends that wait
	// when the crawl is over (nothing queued or in flight) or stopped.
	interruptWait context.CancelFunc

	// refill, if set, is called when the queue is empty and nothing is in
	// flight; it may add links (found in the shared graph) and reports
	// whether Next should look again. Partitioned crawls use it to wait for
	// links that other processes discover in this process's share.
	refill func(ctx context.Context) bool
}

// depthLevels is the number of priority levels of the frontier: links are
// handed out shallowest first, so that a crawl cut short by --max-pages or
// an interrupt has covered the site breadth-first; depths from
// depthLevels-1 on share the last level.
const depthLevels = 8

type queuedLink struct {
	link  linkgraph.Link
	depth int
}

func newFrontier(ctx context.Context, maxPages int, opts politeness.Options) (*frontier, error) {
	// Discovery must never block on a full queue: the pipeline goroutine
	// that discovers links is the one that would have to drain it.
	opts.MaxQueued = math.MaxInt
	opts.Levels = depthLevels
	sched, err := politeness.NewScheduler[queuedLink](opts)
	if err != nil {
		return nil, fmt.Errorf("frontier: %w", err)
	}
	return &frontier{
		ctx:      ctx,
		sched:    sched,
		maxPages: maxPages,
		seen:     make(map[uuid.UUID]struct{}),
		leases:   make(map[uuid.UUID]*politeness.Lease[queuedLink]),
		depth:    make(map[uuid.UUID]int),
	}, nil
}

// add queues l, found on host at depth, unless it was queued before in this
// run. It reports whether l was queued.
func (f *frontier) add(l linkgraph.Link, host string, depth int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, dup := f.seen[l.ID]; dup || f.closed {
		return false
	}
	prio := min(depth, depthLevels-1)
	if err := f.sched.PushPriority(f.ctx, host, prio, queuedLink{link: l, depth: depth}); err != nil {
		return false // the crawl is being torn down
	}
	f.seen[l.ID] = struct{}{}
	f.queued++
	return true
}

// isSeen reports whether the link was queued in this run.
func (f *frontier) isSeen(id uuid.UUID) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.seen[id]
	return ok
}

// depthOf returns the depth at which a link in flight was handed out.
func (f *frontier) depthOf(id uuid.UUID) (int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.depth[id]
	return d, ok
}

// fetched frees the request slot of the host of the page handed out for
// id, as soon as the page is fetched and stored in the graph: its request
// is long over, and waiting for the text index as well would let a slow
// index hold back requests to the host. The page stays in flight until
// done, since it can still add links until then.
func (f *frontier) fetched(id uuid.UUID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.releaseLocked(id)
}

// releaseLocked frees the host slot held for id, once. f.mu must be held.
func (f *frontier) releaseLocked(id uuid.UUID) {
	if l := f.leases[id]; l != nil {
		l.Release()
		delete(f.leases, id)
	}
}

// done records that the page handed out for id has left the crawl pipeline
// and frees its host's request slot if fetched has not.
func (f *frontier) done(id uuid.UUID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.releaseLocked(id)
	delete(f.depth, id)
	f.inFlight--
	f.wakeIfOver()
}

// stop makes Next report the end as soon as the pages in flight are done;
// links queued so far stay in the graph for the next run.
func (f *frontier) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.wakeIfOver()
}

// wakeIfOver ends a blocked Next when there is nothing more to hand out.
// f.mu must be held.
func (f *frontier) wakeIfOver() {
	if f.interruptWait != nil && (f.closed || (f.queued == 0 && f.inFlight == 0)) {
		f.interruptWait()
	}
}

// stats returns the number of links queued and in flight.
func (f *frontier) stats() (queued, inFlight int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queued, f.inFlight
}

// Next implements linkgraph.LinkIterator.
func (f *frontier) Next() bool {
	for {
		f.mu.Lock()
		if f.closed {
			f.mu.Unlock()
			return false
		}
		if f.queued == 0 && f.inFlight == 0 {
			f.mu.Unlock()
			// This process's share of the crawl is done, unless another
			// process sharing the graph queues more (see refill).
			if f.refill == nil || !f.refill(f.ctx) {
				return false
			}
			continue
		}
		waitCtx, cancel := context.WithCancel(f.ctx)
		f.interruptWait = cancel
		f.mu.Unlock()

		lease, err := f.sched.Next(waitCtx)
		if err == nil {
			lease.Start()
		}

		f.mu.Lock()
		f.interruptWait = nil
		cancel()
		switch {
		case err == nil && f.closed:
			// Stopped while the link was being handed out: leave it for
			// the next run.
			lease.Release()
			f.mu.Unlock()
			return false
		case err == nil:
			f.queued--
			f.inFlight++
			f.handed++
			f.leases[lease.Value.link.ID] = lease
			f.depth[lease.Value.link.ID] = lease.Value.depth
			f.cur = lease.Value.link
			if f.maxPages > 0 && f.handed >= f.maxPages {
				f.closed = true
			}
			f.mu.Unlock()
			return true
		case f.ctx.Err() != nil, errors.Is(err, politeness.ErrClosed):
			f.mu.Unlock()
			return false
		}
		// The wait was interrupted because the crawl may be over: look
		// again.
		f.mu.Unlock()
	}
}

// Link implements linkgraph.LinkIterator.
func (f *frontier) Link() *linkgraph.Link {
	l := f.cur
	return &l
}

// Error implements linkgraph.LinkIterator.
func (f *frontier) Error() error { return nil }

// Close implements linkgraph.LinkIterator: it releases the scheduler.
func (f *frontier) Close() error {
	f.sched.Close()
	return nil
}

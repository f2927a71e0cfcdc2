package engine

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/politeness"
	"github.com/linksrus/linksrus/crawler/workqueue"
	"github.com/linksrus/linksrus/linkgraph"
)

// depthLevels is the number of priority levels for new links: links are
// handed out shallowest first, so that a crawl cut short by MaxPages or an
// interruption has covered the site breadth-first; depths from
// depthLevels-1 on share the last level. Level 0 of the scheduler, above
// them, is for parked pages, whose fetch is already under way.
const depthLevels = 8

// item is what the frontier queues under a host: a link to fetch, or a
// page whose fetch was parked until the host can take its next request.
type item struct {
	link  linkgraph.Link
	depth int
	// lastMod is the <lastmod> of the sitemap entry the link was queued
	// from (zero otherwise, or when the sitemap did not say), as its
	// latest instant (sitemap.Entry.LastModUntil): the page has not
	// changed since, by the site's word. It travels with the link through
	// the spill file and reaches the page's payload at hand-out
	// (ModifiedAt), to spare the request of a page retrieved after it. In
	// a shared crawl it does not survive the shared queue.
	lastMod time.Time
	parked  *crawler.Payload
}

// maxLateLastMods bounds frontier.lateLastMods (40-odd bytes each).
const maxLateLastMods = 1 << 20

// leaseEntry is the host slot held for a page handed out.
type leaseEntry struct {
	lease   *politeness.Lease[item]
	started bool
}

// frontier is the queue of a run and its per-host pacing: next hands out
// pages (it blocks until a page's host can take a request, and reports the
// end once nothing is queued or in flight, since only a page in flight can
// add links), every request of the crawl is started through begin, and a
// page that must wait comes back through park. The run's feed puts it
// behind the crawler's Frontier contract.
//
// The slot a page is handed out with is held for the page's first request
// (Begin starts it, and the host's delay runs from then); any further
// request (a redirect hop, a retry) takes a fresh slot or parks the page.
type frontier struct {
	ctx       context.Context // the run's; ends pushes and waits
	sched     *politeness.Scheduler[item]
	graph     Graph
	cutoff    time.Time
	maxPages  int
	maxQueued int
	robots    *robotsTable   // nil: robots.txt ignored
	sitemaps  *sitemapReader // nil: sitemaps ignored
	// work is where work comes from beyond the seeds and where the links
	// found wait: the frontier itself in a crawl by one process, a shared
	// queue of which the frontier holds the leased hosts' links in another.
	work workSource

	mu           sync.Mutex
	seen         *seenSet
	spill        *spill
	queued       int // items in the scheduler: links and parked pages
	linksQueued  int // of which links
	parkedQueued int // of which parked pages
	inFlight     int // pages handed out and not yet reported
	handed       int // new pages handed out
	left         int // links dropped from the queue after stop, for the next run
	stopped      bool
	leases       map[uuid.UUID]*leaseEntry
	depth        map[uuid.UUID]int // depth of the pages in flight
	// hops holds, for a page admitted to a redirect's target, the
	// target's host until the hop's request starts, is parked or the page
	// is done; hopsTo counts them by host. Meanwhile the page is neither
	// queued nor in flight on that host, and the host must not look idle:
	// a shared crawl would give it up under the page, whose request then
	// could not start.
	hops   map[uuid.UUID]string
	hopsTo map[string]int
	// lateLastMods holds the sitemap lastmod of links that were queued
	// before their host's sitemap listed them (a recrawl queues every
	// page due from the graph first), taken when they are handed out;
	// at most maxLateLastMods of them.
	lateLastMods map[uuid.UUID]time.Time
	// sitemapsPending counts the hosts whose sitemaps are being read: the
	// crawl is not over while one may still queue links.
	sitemapsPending int
	// interruptWait, while next waits in the scheduler, ends that
	// wait when the crawl may be over (nothing queued or in flight) or is
	// stopped.
	interruptWait context.CancelFunc
}

func newFrontier(ctx context.Context, o *Options, cutoff time.Time) (*frontier, error) {
	sched, err := politeness.NewScheduler[item](politeness.Options{
		MaxInFlight: o.PerHost,
		MinDelay:    o.Delay,
		// Discovery must never block on a full queue: the pipeline
		// goroutine that discovers links is the one that would have to
		// drain it. The queue is bounded by spilling instead.
		MaxQueued: int(^uint(0) >> 1),
		Levels:    1 + depthLevels,
		// Every request's write is reported (sentReporter).
		UntilSent: true,
	})
	if err != nil {
		return nil, fmt.Errorf("engine: frontier: %w", err)
	}
	return &frontier{
		ctx:       ctx,
		sched:     sched,
		graph:     o.Graph,
		cutoff:    cutoff,
		maxPages:  o.MaxPages,
		maxQueued: o.MaxQueued,
		seen:      newSeenSet(o.MaxSeen),
		spill:     newSpill(o.SpillDir, depthLevels),
		work:      localSource{},
		leases:    make(map[uuid.UUID]*leaseEntry),
		depth:     make(map[uuid.UUID]int),
		hops:      make(map[uuid.UUID]string),
		hopsTo:    make(map[string]int),

		lateLastMods: make(map[uuid.UUID]time.Time),
	}, nil
}

// add queues l at depth unless it was queued before in this run; it
// reports whether it was. Beyond MaxQueued links in memory, the link waits
// in the spill file.
func (f *frontier) add(l linkgraph.Link, depth int) (bool, error) {
	return f.addItem(item{link: l, depth: depth})
}

// addListed is add for a link a sitemap listed, with the entry's lastmod.
func (f *frontier) addListed(l linkgraph.Link, depth int, lastMod time.Time) (bool, error) {
	return f.addItem(item{link: l, depth: depth, lastMod: lastMod})
}

func (f *frontier) addItem(it item) (bool, error) {
	u, err := url.Parse(it.link.URL)
	if err != nil {
		return false, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.seen.add(it.link.URL) {
		if !it.lastMod.IsZero() && len(f.lateLastMods) < maxLateLastMods {
			f.lateLastMods[it.link.ID] = it.lastMod
		}
		return false, nil
	}
	return f.placeLocked(it, u.Host)
}

// placeClaimed queues a link claimed in this run (a redirect's target)
// at depth 0.
func (f *frontier) placeClaimed(l linkgraph.Link, host string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, err := f.placeLocked(item{link: l}, host)
	return err
}

// placeLocked queues a link claimed in this run where the work source
// says; it reports whether the link is queued. f.mu must be held.
func (f *frontier) placeLocked(it item, host string) (bool, error) {
	switch f.work.place(it.link, host, it.depth) {
	case elsewhere:
		return true, nil
	case inScheduler:
		return true, f.pushLocked(it, host)
	}
	if f.stopped {
		return false, nil // left in the graph for the next run
	}
	if f.linksQueued >= f.maxQueued {
		return true, f.spill.write(it)
	}
	return true, f.pushLocked(it, host)
}

// pushLocked queues a link in the scheduler. f.mu must be held.
func (f *frontier) pushLocked(it item, host string) error {
	if f.robots != nil {
		// Keeps the host paused until its robots.txt is known.
		f.robots.ensure(it.link.URL)
	}
	if err := f.sched.PushPriority(f.ctx, host, 1+min(it.depth, depthLevels-1), it); err != nil {
		return err
	}
	f.queued++
	f.linksQueued++
	return nil
}

// refillLocked moves spilled links back into the scheduler once the queue
// has drained to half its bound, shallowest first. f.mu must be held.
func (f *frontier) refillLocked() error {
	if f.spill.len() == 0 || f.linksQueued > f.maxQueued/2 {
		return nil
	}
	return f.spill.read(f.maxQueued-f.linksQueued, func(it item) error {
		u, err := url.Parse(it.link.URL)
		if err != nil {
			return nil
		}
		return f.pushLocked(it, u.Host)
	})
}

// isSeen reports whether the URL was claimed in this run.
func (f *frontier) isSeen(url string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen.has(url)
}

// claim claims a redirect target for the page being fetched; it reports
// false if the URL was claimed before in this run (queued as a link, or
// the target of another redirect), whose own fetch covers it.
func (f *frontier) claim(url string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen.add(url)
}

// depthOf returns the depth at which a page in flight was handed out.
func (f *frontier) depthOf(id uuid.UUID) (int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.depth[id]
	return d, ok
}

// sitemapsDone records that a host's sitemaps have been read.
func (f *frontier) sitemapsDone() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sitemapsPending--
	f.wakeIfOverLocked()
}

// hop records that page id was admitted to a redirect's target on host.
func (f *frontier) hop(id uuid.UUID, host string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.endHopLocked(id)
	f.hops[id] = host
	f.hopsTo[host]++
}

// endHopLocked forgets page id's hop: its request started, it was parked
// (queued under the host), or it is done. f.mu must be held.
func (f *frontier) endHopLocked(id uuid.UUID) {
	host, ok := f.hops[id]
	if !ok {
		return
	}
	delete(f.hops, id)
	if f.hopsTo[host]--; f.hopsTo[host] <= 0 {
		delete(f.hopsTo, host)
	}
}

// begin is asked right before a request of the page id to host: it starts
// the page's own slot for its first request, or takes a fresh one.
func (f *frontier) begin(id uuid.UUID, host string) (func(), bool) {
	if _, start := f.work.may(host); !start {
		return nil, false
	}
	f.mu.Lock()
	e := f.leases[id]
	if e != nil && !e.started && e.lease.Host == host {
		e.started = true
		f.mu.Unlock()
		e.lease.Start()
		return e.lease.Release, true
	}
	f.mu.Unlock()
	release, _, ok := f.sched.TryAcquire(host)
	if ok {
		// In flight on the host now: the scheduler counts it.
		f.mu.Lock()
		f.endHopLocked(id)
		f.mu.Unlock()
	}
	return release, ok
}

// park takes back a page whose next request to host must wait.
func (f *frontier) park(p *crawler.Payload, host string, notBefore time.Time) {
	held, start := f.work.may(host)
	f.mu.Lock()
	f.endHopLocked(p.LinkID)
	if e := f.leases[p.LinkID]; e != nil {
		delete(f.leases, p.LinkID)
		e.lease.Release()
	}
	if !held {
		// Another process holds the host now, and fetches the page.
		f.mu.Unlock()
		p.Abandon(errHostLost)
		return
	}
	if !start {
		// The host's lease awaits its renewal.
		notBefore = later(notBefore, time.Now().Add(fencedRetry))
	}
	if !notBefore.IsZero() {
		// A retry's backoff or a Retry-After: the host is left alone
		// meanwhile, not only this page.
		f.sched.Defer(host, notBefore)
	}
	err := f.sched.PushPriority(f.ctx, host, 0, item{parked: p})
	if err == nil {
		f.queued++
		f.parkedQueued++
	}
	f.mu.Unlock()
	if err != nil {
		// The run is over: the page is reported (as cancelled).
		p.MarkAsProcessed()
	}
}

// done records that a page handed out has been reported.
func (f *frontier) done(id uuid.UUID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e := f.leases[id]; e != nil {
		delete(f.leases, id)
		e.lease.Release()
	}
	f.endHopLocked(id)
	if _, ok := f.depth[id]; ok {
		delete(f.depth, id)
		f.inFlight--
	}
	f.wakeIfOverLocked()
}

// stop hands out no new page from now on; pages in flight finish, parked
// ones included. What is still queued stays in the graph for the next run.
func (f *frontier) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopLocked()
}

// stopLocked stops handing out pages. f.mu must be held.
func (f *frontier) stopLocked() {
	f.stopped = true
	f.work.stop()
	f.wakeIfOverLocked()
}

// overLocked reports whether nothing is left to hand out. f.mu must be
// held.
func (f *frontier) overLocked() bool {
	if f.stopped {
		return f.parkedQueued == 0 && f.inFlight == 0
	}
	return f.queued == 0 && f.inFlight == 0 && f.spill.len() == 0 && f.sitemapsPending == 0
}

// wakeIfOverLocked ends a waiting next when there may be nothing
// more to hand out. f.mu must be held.
func (f *frontier) wakeIfOverLocked() {
	if f.interruptWait != nil && (f.stopped || f.overLocked()) {
		f.interruptWait()
	}
}

// stats returns the links queued (in memory, spilled, or left for the next
// run by a stop) and the pages in flight.
func (f *frontier) stats() (queued, inFlight int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.linksQueued + f.spill.len() + f.left, f.inFlight
}

// next hands out the next page to fetch (see crawler.Frontier.Next): a
// parked page, or a new one for a link whose host can take a request. It
// returns nil once nothing is left, the run stopped, or ctx ended, and an
// error when links spilled to a file cannot be read back. While it waits
// with nothing queued and pages in flight it calls starved: the next pages
// may be links of pages waiting in the crawler's store batches.
func (f *frontier) next(ctx context.Context, starved func()) (*crawler.Payload, error) {
	for {
		f.mu.Lock()
		if err := f.refillLocked(); err != nil {
			f.mu.Unlock()
			return nil, fmt.Errorf("engine: frontier: read spilled links: %w", err)
		}
		if f.overLocked() {
			stopped := f.stopped
			f.mu.Unlock()
			if stopped || !f.work.refill(ctx) {
				return nil, nil
			}
			continue
		}
		starving := f.queued == 0 && f.inFlight > 0
		waitCtx, cancel := context.WithCancel(ctx)
		f.interruptWait = cancel
		f.mu.Unlock()
		if starving {
			starved()
		}

		lease, err := f.sched.Next(waitCtx)

		f.mu.Lock()
		f.interruptWait = nil
		cancel()
		if err != nil {
			f.mu.Unlock()
			if ctx.Err() != nil || errors.Is(err, politeness.ErrClosed) {
				return nil, nil
			}
			continue // woken: the crawl may be over, or stopped
		}
		f.queued--
		it := lease.Value
		if it.parked != nil {
			f.parkedQueued--
			f.leases[it.parked.LinkID] = &leaseEntry{lease: lease}
			f.mu.Unlock()
			return it.parked, nil
		}
		f.linksQueued--
		if f.stopped {
			// Left in the graph, or the shared queue, for the next run.
			f.left++
			f.work.out(it.link.ID, lease.Host, false)
			f.mu.Unlock()
			lease.Release()
			continue
		}
		if f.seen.overflowed() {
			// Once the seen-set overflowed, a link may have been queued
			// twice: skip it if its other copy is in flight, or crawled.
			_, inFlight := f.depth[it.link.ID]
			f.mu.Unlock()
			if inFlight || f.retrievedSince(it.link.ID) {
				lease.Release()
				f.work.out(it.link.ID, lease.Host, false)
				continue
			}
			f.mu.Lock()
			if _, inFlight := f.depth[it.link.ID]; inFlight {
				f.mu.Unlock()
				lease.Release()
				f.work.out(it.link.ID, lease.Host, false)
				continue
			}
		}
		f.work.out(it.link.ID, lease.Host, true)
		f.handed++
		f.inFlight++
		if f.sitemaps != nil && f.sitemaps.start(it.link.URL, lease.Host) {
			f.sitemapsPending++
		}
		f.leases[it.link.ID] = &leaseEntry{lease: lease}
		f.depth[it.link.ID] = it.depth
		if late, ok := f.lateLastMods[it.link.ID]; ok {
			delete(f.lateLastMods, it.link.ID)
			if it.lastMod.IsZero() {
				it.lastMod = late
			}
		}
		if f.maxPages > 0 && f.handed >= f.maxPages {
			f.stopLocked()
		}
		f.mu.Unlock()
		l := it.link
		p := crawler.NewPayload(l.ID, l.URL, l.RetrievedAt)
		p.ETag, p.LastModified, p.ModifiedAt = l.ETag, l.LastModified, it.lastMod
		return p, nil
	}
}

// retrievedSince reports whether the graph has the link retrieved since
// the run's cutoff.
func (f *frontier) retrievedSince(id uuid.UUID) bool {
	l, err := f.graph.FindLink(id)
	return err == nil && !l.RetrievedAt.Before(f.cutoff)
}

// close releases the scheduler and the spill file, and reports the pages
// still parked as cancelled.
func (f *frontier) close() error {
	f.sched.Close()
	f.mu.Lock()
	f.stopped = true
	f.mu.Unlock()
	// Parked pages must still be reported, once.
	for _, it := range f.sched.Drain() {
		if it.parked != nil {
			it.parked.MarkAsProcessed()
		}
	}
	return f.spill.close()
}

// idle reports whether nothing is queued or in flight.
func (f *frontier) idle() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queued == 0 && f.inFlight == 0 && f.sitemapsPending == 0
}

// welcome prepares the frontier for a host just leased: its next request
// waits as the lease says, and a robots.txt cached by another process is
// used rather than fetched again.
func (f *frontier) welcome(l workqueue.Lease) {
	// The robots.txt first: its Crawl-delay is the host's delay.
	if f.robots != nil && l.Robots != nil {
		f.robots.seed(l.Host, *l.Robots)
	}
	switch {
	case l.Expired:
		f.sched.DeferPastDelay(l.Host, time.Now().Add(l.Wait))
	case l.Wait > 0:
		f.sched.Defer(l.Host, time.Now().Add(l.Wait))
	}
}

// pushPulled queues links read from the shared queue.
func (f *frontier) pushPulled(links []workqueue.Link) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, q := range links {
		f.seen.add(q.URL)
		l := linkgraph.Link{ID: q.ID, URL: q.URL, RetrievedAt: q.RetrievedAt, ETag: q.ETag, LastModified: q.LastModified}
		if err := f.pushLocked(item{link: l, depth: q.Depth}, q.Host); err != nil {
			// The run is over; the link stays queued for the next.
			f.work.out(q.ID, q.Host, false)
		}
	}
}

// dropHost takes a host's queued items out of the scheduler, when the host
// goes to another process: its links stay in the shared queue; its parked
// pages are abandoned if the host is lost, or queued again to finish here
// if it is being handed over once they are done.
func (f *frontier) dropHost(host string, lost bool) {
	f.mu.Lock()
	items := f.sched.DrainHost(host)
	var abandon []*crawler.Payload
	for _, it := range items {
		f.queued--
		if it.parked == nil {
			f.linksQueued--
			f.work.out(it.link.ID, host, false)
			continue
		}
		if lost {
			f.parkedQueued--
			abandon = append(abandon, it.parked)
			continue
		}
		if err := f.sched.PushPriority(f.ctx, host, 0, it); err != nil {
			f.parkedQueued--
			abandon = append(abandon, it.parked)
			continue
		}
		f.queued++
	}
	f.wakeIfOverLocked()
	f.mu.Unlock()
	for _, p := range abandon {
		p.Abandon(errHostLost)
	}
}

// hostState reports whether host is idle (nothing queued or in flight,
// and no robots.txt fetch under way, whose decision is shared when it
// ends) and when its next request may start.
func (f *frontier) hostState(host string) (bool, time.Time) {
	idle, next := f.sched.HostState(host)
	f.mu.Lock()
	if f.hopsTo[host] > 0 {
		idle = false
	}
	f.mu.Unlock()
	if f.robots != nil && f.robots.busy(host) || f.sitemaps != nil && f.sitemaps.busy(host) {
		idle = false
	}
	return idle, next
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

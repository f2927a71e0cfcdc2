package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/workqueue"
	"github.com/linksrus/linksrus/internal/ctxtime"
	"github.com/linksrus/linksrus/linkgraph"
)

// Shared configures a crawl whose work is shared with other processes
// through a workqueue.Queue (see Options.Shared).
type Shared struct {
	// Queue is the shared work. Default: the queue of Options.Graph,
	// which must then be a workqueue.Provider (a PostgreSQL graph is).
	Queue workqueue.Queue
	// LeaseTTL is how long a host lease lasts unless renewed: how soon a
	// dead process's hosts go to the others. Leases are renewed every
	// LeaseTTL/4, and a process starts no request on a host once
	// 3/4 of LeaseTTL have passed (by its own monotonic clock) since the
	// renewal was sent, so that a stalled process cannot overlap the
	// next owner. Default: DefaultLeaseTTL.
	LeaseTTL time.Duration
	// Idle is how long a process waits, once no link is queued anywhere
	// in the crawl, before it finishes. Default: DefaultSharedIdle.
	Idle time.Duration
	// MaxHosts is the most hosts one process holds at once. Default: 4 ×
	// Workers.
	MaxHosts int
}

// withQueue returns s with its Queue, taken from g when s has none.
func (s *Shared) withQueue(g Graph) (*Shared, error) {
	if s.Queue != nil {
		return s, nil
	}
	p, ok := g.(workqueue.Provider)
	if !ok {
		return nil, fmt.Errorf("%w: %w", ErrOptions, &crawler.OptionError{Field: "Options.Shared.Queue",
			Problem: fmt.Sprintf("is required unless the Graph keeps one (workqueue.Provider, such as a PostgreSQL graph); %T does not", g)})
	}
	sh := *s
	sh.Queue = p.WorkQueue()
	return &sh, nil
}

// Defaults of a shared crawl.
const (
	DefaultLeaseTTL   = 30 * time.Second
	DefaultSharedIdle = 5 * time.Second
)

// Tuning of the shared work source.
const (
	// pullBatch links of a host are read at a time; more are read once
	// fewer than a quarter are left in memory.
	pullBatch = 64
	// adoptMax bounds the links of one held host kept in memory as they
	// are found; more wait in the shared queue.
	adoptMax = 4 * pullBatch
	// flushDoneEvery bounds how long handled links wait to be removed
	// from the queue, and flushDoneAt how many wait, so that removals
	// cost one statement per many pages.
	flushDoneEvery = 250 * time.Millisecond
	flushDoneAt    = 256
	// claimPollMin and claimPollMax bound the back-off between claims
	// that found nothing, and between waits for a notification.
	claimPollMin = 100 * time.Millisecond
	claimPollMax = 2 * time.Second
	// fencedRetry is how soon a page whose host's lease awaits renewal is
	// tried again.
	fencedRetry = 100 * time.Millisecond
)

// errHostLost is given to the pages abandoned when a host's lease went to
// another process.
var errHostLost = errors.New("engine: the host's lease went to another process, which fetches its pages")

// warnUnlessDone logs a failed database call, unless it failed because the
// run is over (ctx ended): a crawl that finishes while a claim or a look
// for work is under way has nothing to warn about.
func warnUnlessDone(ctx context.Context, msg string, args ...any) {
	if ctx.Err() == nil {
		slog.Warn(msg, args...)
	}
}

// heldHost is a host this process holds a lease on.
type heldHost struct {
	since    time.Time
	deadline time.Time // no request starts after this without a renewal
	queued   int       // links pushed to the scheduler and not handed out
	open     int       // links pulled and not yet done
	// more: the last pull filled its batch, or links were queued for the
	// host since; a pull may find more.
	more      bool
	releasing bool // given up for another process, once its pages are done
}

// sharedSource is the frontier's work source in a shared crawl: it claims
// hosts, reads their queued links into the frontier, renews the leases,
// gives hosts up when they run dry or another process needs work, and
// finishes when nothing is queued anywhere for Shared.Idle. The frontier's
// politeness then applies within the process, and a host belongs to one
// process at a time, so per-host limits hold across processes together.
type sharedSource struct {
	q        workqueue.Queue
	worker   uuid.UUID
	f        *frontier
	ttl      time.Duration
	margin   time.Duration
	drain    time.Duration
	idle     time.Duration
	maxHosts int
	cutoff   time.Time
	// queriesAtStart is the queue's statement count when the run began.
	queriesAtStart int64

	wake chan struct{} // pokes the manager; buffered, one pending poke

	// flushMu makes flushEnqueued calls one at a time. The crawler stores
	// batches side by side, and one batch's flush may take the links of
	// another: that other batch's flush must not return, and let its pages
	// be marked retrieved, before those links are written.
	flushMu sync.Mutex

	mu        sync.Mutex
	hosts     map[string]*heldHost
	hostOf    map[uuid.UUID]string // links pulled and not yet done
	toEnqueue []workqueue.Link
	toDelete  []uuid.UUID
	deleting  map[uuid.UUID]string // toDelete, and the batch being deleted, by host
	firstDone time.Time            // when the oldest of toDelete was added
	cooldown  map[string]time.Time
	// share is the hosts this process should hold: the hosts with work
	// over the live processes, as of the last heartbeat.
	share    int
	stopping bool
	over     bool
	changed  chan struct{} // closed when work was pushed or the run is over
}

func newSharedSource(o *Options, f *frontier, cutoff time.Time) *sharedSource {
	s := o.Shared
	ttl := s.LeaseTTL
	var q0 int64
	if c, ok := s.Queue.(interface{ Queries() int64 }); ok {
		q0 = c.Queries()
	}
	return &sharedSource{
		queriesAtStart: q0,
		q:              s.Queue,
		worker:         uuid.New(),
		f:              f,
		ttl:            ttl,
		margin:         ttl / 4,
		drain:          o.FetchTimeout,
		idle:           s.Idle,
		maxHosts:       s.MaxHosts,
		cutoff:         cutoff,
		wake:           make(chan struct{}, 1),
		hosts:          make(map[string]*heldHost),
		hostOf:         make(map[uuid.UUID]string),
		deleting:       make(map[uuid.UUID]string),
		cooldown:       make(map[string]time.Time),
		changed:        make(chan struct{}),
	}
}

// poke wakes the manager.
func (s *sharedSource) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// broadcastLocked wakes refill. s.mu must be held.
func (s *sharedSource) broadcastLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// enqueue buffers a link found in scope; flushEnqueued writes the buffer.
func (s *sharedSource) enqueue(l linkgraph.Link, host string, depth int) {
	s.mu.Lock()
	s.toEnqueue = append(s.toEnqueue, workqueue.Link{ID: l.ID, Host: host, Depth: depth})
	s.mu.Unlock()
}

// flushEnqueued writes the links buffered by enqueue. The graph updater
// calls it once a page's edges are stored and before the page is marked
// retrieved, so that a crash cannot lose the links of a page it crawled.
func (s *sharedSource) flushEnqueued(ctx context.Context) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.Lock()
	batch := s.toEnqueue
	s.toEnqueue = nil
	s.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := s.q.Enqueue(ctx, batch); err != nil {
		// Put them back: a batch whose links these partly are flushes
		// next and must not find them gone.
		s.mu.Lock()
		s.toEnqueue = append(batch, s.toEnqueue...)
		s.mu.Unlock()
		return fmt.Errorf("engine: queue links: %w", err)
	}
	s.mu.Lock()
	poke := false
	for _, l := range batch {
		if h := s.hosts[l.Host]; h != nil && !h.more {
			h.more, poke = true, true
		}
	}
	s.mu.Unlock()
	if poke {
		s.poke()
	}
	return nil
}

// adopt takes a link found in scope straight into the frontier when its
// host is held here and not too much of it is queued in memory; it
// reports whether it did. The link is still queued in the shared queue
// (enqueue), where it waits should this process die.
func (s *sharedSource) adopt(id uuid.UUID, host string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hosts[host]
	if h == nil || h.releasing || s.stopping || h.queued >= adoptMax {
		return false
	}
	if _, ok := s.hostOf[id]; ok {
		return false
	}
	s.hostOf[id] = host
	h.open++
	h.queued++
	return true
}

// mayStart reports whether a request to host may start now: the host is
// held and its lease is safely within its term.
func (s *sharedSource) mayStart(host string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hosts[host]
	return h != nil && time.Now().Before(h.deadline)
}

// holds reports whether host is held.
func (s *sharedSource) holds(host string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hosts[host] != nil
}

// handedOut records that a pulled link of host left the scheduler.
func (s *sharedSource) handedOut(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.hosts[host]; h != nil {
		h.queued--
		if h.queued <= pullBatch/4 {
			s.poke()
		}
	}
}

// forget records that a pulled link will not be handled in this run (the
// run stops, or the host went away): it stays queued.
func (s *sharedSource) forget(id uuid.UUID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if host, ok := s.hostOf[id]; ok {
		delete(s.hostOf, id)
		if h := s.hosts[host]; h != nil {
			h.open--
		}
	}
	s.poke()
}

// finished records a page's outcome: handled pages leave the queue; pages
// the run gave up on (cancelled, abandoned) stay for whoever runs next.
func (s *sharedSource) finished(out crawler.Outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	host, ok := s.hostOf[out.LinkID]
	if !ok {
		return
	}
	delete(s.hostOf, out.LinkID)
	if h := s.hosts[host]; h != nil {
		h.open--
	}
	if out.Reason != crawler.ReasonCanceled && out.Reason != crawler.ReasonDropped {
		s.deleteLocked(out.LinkID, host)
	}
	s.poke()
}

// stop ends claiming and pulling; held hosts are released as their pages
// finish.
func (s *sharedSource) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopping {
		s.stopping = true
		s.broadcastLocked()
	}
	s.poke()
}

// refill is the frontier's refill: called when nothing is queued or in
// flight in the process, it waits until the manager pushed work (true) or
// the crawl is over for this process (false).
func (s *sharedSource) refill(ctx context.Context) bool {
	s.mu.Lock()
	if s.over || s.stopping {
		s.mu.Unlock()
		return false
	}
	ch := s.changed
	s.mu.Unlock()
	if !s.f.idle() {
		// Work was pushed between the frontier's look and this one.
		return true
	}
	s.poke()
	select {
	case <-ch:
	case <-ctx.Done():
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.over && !s.stopping
}

// run is the manager: it keeps the leases and the frontier's supply of
// links until ctx ends. Database errors are retried on the next round; a
// lease that cannot be renewed in time is given up.
func (s *sharedSource) run(ctx context.Context) {
	notified := make(chan struct{}, 1)
	var listener sync.WaitGroup
	defer listener.Wait()
	listener.Go(func() { s.listen(ctx, notified) })

	renewEvery := s.ttl / 4
	// Known to the others, and knowing them, before the first claim: the
	// processes of a crawl starting together then share the hosts out.
	s.renew(ctx)
	lastRenew := time.Now()
	nextRenew := lastRenew.Add(renewEvery)
	claimWait := time.Duration(0)
	nextClaim := time.Now()
	var idleSince, nextOverCheck time.Time
	for ctx.Err() == nil {
		now := time.Now()
		if err := s.flushDone(ctx, false); err != nil && ctx.Err() == nil {
			slog.Warn("shared crawl: removing handled links", "err", err)
		}
		if !now.Before(nextRenew) {
			s.renew(ctx)
			lastRenew = time.Now()
			nextRenew = lastRenew.Add(renewEvery)
			if held, _, _ := s.counts(); held == 0 {
				// No lease to keep: the heartbeat only has to keep this
				// process among the live ones (seen within LeaseTTL).
				nextRenew = lastRenew.Add(s.ttl / 2)
			}
		}
		s.tend(ctx)
		held, limit, stopping := s.counts()
		if !stopping && held < limit && !now.Before(nextClaim) {
			n, err := s.claim(ctx, limit-held)
			if err != nil {
				warnUnlessDone(ctx, "shared crawl: claiming hosts", "err", err)
			}
			if n > 0 {
				claimWait, idleSince = 0, time.Time{}
				nextClaim = time.Now()
				if held == 0 {
					// Reported hungry: say it is not, before the others
					// give it more hosts.
					nextRenew = time.Now()
				}
				continue
			}
			claimWait = min(max(2*claimWait, claimPollMin), claimPollMax)
			nextClaim = time.Now().Add(claimWait)
		}
		if held == 0 && !stopping && s.f.idle() && !now.Before(nextOverCheck) {
			nextOverCheck = s.checkOver(ctx, &idleSince)
		}
		wait := min(time.Until(nextRenew), flushDoneEvery)
		if held < limit && !stopping {
			wait = min(wait, time.Until(nextClaim))
		}
		if held == 0 {
			wait = min(wait, time.Until(nextOverCheck))
		}
		t := time.NewTimer(max(wait, time.Millisecond))
		select {
		case <-s.wake:
		case <-notified:
			// Work was queued or a host given up: claim at once. Or a
			// process joined with nothing to do: a process holding
			// several hosts looks at its share now rather than at its
			// next renewal (at most twice a second).
			claimWait, nextClaim, nextOverCheck = 0, time.Now(), time.Now()
			if held >= 2 {
				nextRenew = lastRenew.Add(min(renewEvery, 500*time.Millisecond))
			}
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
}

// listen relays the queue's wake-ups (another process queued work or gave
// a host up) to the manager.
func (s *sharedSource) listen(ctx context.Context, notified chan<- struct{}) {
	for ctx.Err() == nil {
		woken, err := s.q.WaitForWork(ctx, claimPollMax)
		if err != nil {
			if ctx.Err() == nil {
				slog.Warn("shared crawl: waiting for work", "err", err)
				_ = ctxtime.Sleep(ctx, claimPollMax)
			}
			continue
		}
		if !woken {
			continue
		}
		select {
		case notified <- struct{}{}:
		default:
		}
	}
}

// counts returns how many hosts are held, how many may be, and whether the
// run stops.
func (s *sharedSource) counts() (held, limit int, stopping bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.hosts), s.limitLocked(), s.stopping
}

// limitLocked is the most hosts to hold now: the share, within MaxHosts.
// s.mu must be held.
func (s *sharedSource) limitLocked() int {
	if s.share <= 0 {
		return s.maxHosts
	}
	return min(s.share, s.maxHosts)
}

// checkOver finishes the process once nothing has been queued anywhere in
// the crawl for s.idle; idleSince is when nothing was first seen. It
// returns when to look again: at the end of the idle period, or, while
// other processes have work, after claimPollMax (a host they give up
// wakes this one sooner).
func (s *sharedSource) checkOver(ctx context.Context, idleSince *time.Time) time.Time {
	pending, err := s.q.Pending(ctx)
	if err != nil {
		warnUnlessDone(ctx, "shared crawl: looking for queued links", "err", err)
		return time.Now().Add(claimPollMax)
	}
	if pending {
		*idleSince = time.Time{}
		return time.Now().Add(claimPollMax)
	}
	if idleSince.IsZero() {
		*idleSince = time.Now()
	}
	if time.Since(*idleSince) >= s.idle {
		s.mu.Lock()
		s.over = true
		s.broadcastLocked()
		s.mu.Unlock()
	}
	return idleSince.Add(s.idle)
}

// claim leases up to n more hosts and reads their links.
func (s *sharedSource) claim(ctx context.Context, n int) (int, error) {
	s.mu.Lock()
	var skip []string
	now := time.Now()
	for h, until := range s.cooldown {
		if now.After(until) {
			delete(s.cooldown, h)
		} else {
			skip = append(skip, h)
		}
	}
	s.mu.Unlock()
	sent := time.Now()
	leases, err := s.q.Claim(ctx, s.worker, n, s.ttl, s.drain, skip)
	if err != nil {
		return 0, err
	}
	for _, l := range leases {
		s.mu.Lock()
		h := &heldHost{since: sent, deadline: sent.Add(s.ttl - s.margin), more: true}
		for _, host := range s.hostOf {
			// Pages still in flight from an earlier lease on the host.
			if host == l.Host {
				h.open++
			}
		}
		s.hosts[l.Host] = h
		s.mu.Unlock()
		s.f.welcome(l)
	}
	if len(leases) > 0 {
		s.tend(ctx)
	}
	return len(leases), nil
}

// renew extends the leases, gives up the hosts that are gone, and gives a
// host to a process that has none if this one holds more than its share.
func (s *sharedSource) renew(ctx context.Context) {
	s.mu.Lock()
	hosts := make([]string, 0, len(s.hosts))
	for h := range s.hosts {
		hosts = append(hosts, h)
	}
	hungry := !s.stopping && len(s.hosts) < s.maxHosts && !s.over
	s.mu.Unlock()
	sent := time.Now()
	if len(hosts) > 0 {
		kept, err := s.q.Renew(ctx, s.worker, hosts, s.ttl)
		if err != nil {
			warnUnlessDone(ctx, "shared crawl: renewing leases", "err", err)
			s.dropExpired()
		} else {
			s.renewed(hosts, kept, sent)
		}
	}
	s.mu.Lock()
	held := len(s.hosts)
	hungry = hungry && held == 0
	s.mu.Unlock()
	st, err := s.q.Heartbeat(ctx, s.worker, workqueue.WorkerStatus{Hosts: held, Hungry: hungry}, s.ttl)
	if err != nil {
		warnUnlessDone(ctx, "shared crawl: heartbeat", "err", err)
		return
	}
	s.mu.Lock()
	s.share = 0
	if st.PendingHosts < workqueue.MaxCountedHosts {
		s.share = max(1, (st.PendingHosts+st.Workers-1)/max(st.Workers, 1))
	}
	limit := s.limitLocked()
	s.mu.Unlock()
	if st.FewestHungry >= 0 && held >= 2 && st.FewestHungry < held-1 {
		// Down to the share at once, at least one host.
		s.give(max(1, held-limit))
	}
}

// renewed applies a renewal's answer: kept hosts' deadlines move on, the
// others are lost.
func (s *sharedSource) renewed(sent, kept []string, at time.Time) {
	s.mu.Lock()
	var lost []string
	for _, h := range sent {
		hh := s.hosts[h]
		if hh == nil {
			continue
		}
		if slices.Contains(kept, h) {
			hh.deadline = at.Add(s.ttl - s.margin)
		} else {
			lost = append(lost, h)
		}
	}
	s.mu.Unlock()
	for _, h := range lost {
		s.lose(h)
	}
}

// dropExpired gives up the hosts whose lease may have expired while the
// database could not be reached.
func (s *sharedSource) dropExpired() {
	s.mu.Lock()
	var lost []string
	now := time.Now()
	for h, hh := range s.hosts {
		if !now.Before(hh.deadline.Add(s.margin)) {
			lost = append(lost, h)
		}
	}
	s.mu.Unlock()
	for _, h := range lost {
		s.lose(h)
	}
}

// lose forgets a host another process may now hold: its queued links stay
// in the shared queue, and its parked pages are abandoned.
func (s *sharedSource) lose(host string) {
	s.mu.Lock()
	delete(s.hosts, host)
	s.mu.Unlock()
	s.f.dropHost(host, true)
}

// give gives n hosts, those held longest, to other processes: no more of
// their links are handed out, and each is released once its pages are
// done.
func (s *sharedSource) give(n int) {
	s.mu.Lock()
	var held []string
	for h, hh := range s.hosts {
		if !hh.releasing {
			held = append(held, h)
		}
	}
	slices.SortFunc(held, func(a, b string) int { return s.hosts[a].since.Compare(s.hosts[b].since) })
	held = held[:min(n, len(held)-1)] // keep one
	for _, h := range held {
		s.hosts[h].releasing = true
	}
	s.mu.Unlock()
	for _, h := range held {
		s.f.dropHost(h, false)
	}
}

// tend reads more links for the held hosts that run low, and releases the
// hosts that are done.
func (s *sharedSource) tend(ctx context.Context) {
	type job struct {
		host    string
		skip    []uuid.UUID
		release bool
	}
	var jobs []job
	s.mu.Lock()
	for name, h := range s.hosts {
		switch {
		case h.releasing || s.stopping:
			if h.open == 0 {
				jobs = append(jobs, job{host: name, release: true})
			}
		case h.queued <= pullBatch/4 && (h.more || h.open == 0):
			// Links read before and not done, or done and not yet
			// removed, are not read again.
			var skip []uuid.UUID
			for id, hn := range s.hostOf {
				if hn == name {
					skip = append(skip, id)
				}
			}
			for id, hn := range s.deleting {
				if hn == name {
					skip = append(skip, id)
				}
			}
			jobs = append(jobs, job{host: name, skip: skip})
		}
	}
	s.mu.Unlock()
	for _, j := range jobs {
		if j.release {
			s.release(ctx, j.host)
			continue
		}
		links, err := s.q.Pull(ctx, j.host, j.skip, pullBatch)
		if err != nil {
			warnUnlessDone(ctx, "shared crawl: reading queued links", "host", j.host, "err", err)
			continue
		}
		s.pulled(ctx, j.host, links)
	}
}

// pulled hands a host's links read from the queue to the frontier, and
// releases the host if it has nothing left.
func (s *sharedSource) pulled(ctx context.Context, host string, links []workqueue.Link) {
	var fresh []workqueue.Link
	s.mu.Lock()
	h := s.hosts[host]
	if h == nil || h.releasing || s.stopping {
		s.mu.Unlock()
		return
	}
	h.more = len(links) == pullBatch
	for _, l := range links {
		if !l.RetrievedAt.Before(s.cutoff) {
			// Crawled since the run's cutoff: handled by whoever crawled
			// it, which died before removing it.
			s.deleteLocked(l.ID, host)
			continue
		}
		if _, ok := s.hostOf[l.ID]; ok {
			continue
		}
		if _, ok := s.deleting[l.ID]; ok {
			// Handled since the read began (found and crawled here
			// while the read was under way).
			continue
		}
		s.hostOf[l.ID] = host
		h.open++
		h.queued++
		fresh = append(fresh, l)
	}
	done := h.open == 0 && len(links) == 0
	s.mu.Unlock()
	if len(fresh) > 0 {
		s.f.pushPulled(fresh)
		// Only now: a refill woken before the push would find nothing
		// and wait again.
		s.mu.Lock()
		s.broadcastLocked()
		s.mu.Unlock()
	}
	if done {
		s.release(ctx, host)
	}
}

// release gives host back once its pages are done, passing on when its
// next request may start.
func (s *sharedSource) release(ctx context.Context, host string) {
	idle, next := s.f.hostState(host)
	if !idle {
		return // a request (robots.txt, say) is still running
	}
	if err := s.flushDone(ctx, true); err != nil {
		warnUnlessDone(ctx, "shared crawl: removing handled links", "err", err)
		return
	}
	s.mu.Lock()
	h := s.hosts[host]
	if h == nil || h.open > 0 || h.queued > 0 {
		s.mu.Unlock()
		return
	}
	if h.releasing {
		// Let another process have it before this one claims it again:
		// a hungry one, woken by the release, claims it at once.
		s.cooldown[host] = time.Now().Add(min(s.ttl/2, time.Second))
	}
	delete(s.hosts, host)
	s.mu.Unlock()
	if err := s.q.Release(ctx, s.worker, host, time.Until(next)); err != nil {
		warnUnlessDone(ctx, "shared crawl: releasing host", "host", host, "err", err)
	}
}

// flushDone removes handled links from the queue when enough wait, or
// they waited long enough, or always if force.
func (s *sharedSource) flushDone(ctx context.Context, force bool) error {
	s.mu.Lock()
	if len(s.toDelete) == 0 || (!force && len(s.toDelete) < flushDoneAt && time.Since(s.firstDone) < flushDoneEvery) {
		s.mu.Unlock()
		return nil
	}
	batch := s.toDelete
	s.toDelete = nil
	s.mu.Unlock()
	err := s.q.Done(ctx, batch)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.toDelete = append(s.toDelete, batch...)
		return err
	}
	for _, id := range batch {
		delete(s.deleting, id)
	}
	return nil
}

// deleteLocked marks a link of host for removal from the queue. s.mu must
// be held.
func (s *sharedSource) deleteLocked(id uuid.UUID, host string) {
	if _, ok := s.deleting[id]; ok {
		return
	}
	if len(s.toDelete) == 0 {
		s.firstDone = time.Now()
	}
	s.toDelete = append(s.toDelete, id)
	s.deleting[id] = host
}

// close ends the shared work of the run: handled links are removed, every
// held host is released (its queued links stay for others) and the
// process leaves the crawl. It runs after the crawl, with its own time
// limit, since the run's context may be over.
func (s *sharedSource) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.flushDone(ctx, true)
	s.mu.Lock()
	hosts := make([]string, 0, len(s.hosts))
	for h := range s.hosts {
		hosts = append(hosts, h)
	}
	s.hosts = map[string]*heldHost{}
	s.mu.Unlock()
	for _, h := range hosts {
		_, next := s.f.hostState(h)
		err = errors.Join(err, s.q.Release(ctx, s.worker, h, time.Until(next)))
	}
	err = errors.Join(err, s.q.Leave(ctx, s.worker))
	if c, ok := s.q.(interface{ Close() error }); ok {
		err = errors.Join(err, c.Close())
	}
	return err
}

// saveRobots shares a robots.txt fetched for a held host.
func (s *sharedSource) saveRobots(host string, rc workqueue.Robots) {
	if !s.holds(host) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.q.SaveRobots(ctx, host, rc); err != nil {
		slog.Warn("shared crawl: saving robots.txt", "host", host, "err", err)
	}
}

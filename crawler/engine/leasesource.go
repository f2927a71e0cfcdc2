package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/workqueue"
	"github.com/linksrus/linksrus/linkgraph"
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
var errHostLost = fmt.Errorf("engine: the host's lease went to another process, which fetches its pages: %w", crawler.ErrWithdrawn)

// errLeaseEnded ends a held host's requests (heldHost.term) when its lease
// may have ended unrenewed, or is lost or given back.
var errLeaseEnded = fmt.Errorf("engine: the lease on the host ended or awaits its renewal: %w", crawler.ErrWithdrawn)

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
	// term is what the host's requests run under (fence): it ends at the
	// lease's hard end, the sending of the last renewal (or of the claim)
	// plus the TTL by this process's clock, which is never after the
	// expiry the database keeps, unless a renewal moves it on first; and
	// when the host is lost or released. endTerm ends it, hardEnd is the
	// timer that does at the hard end.
	term    context.Context
	endTerm context.CancelCauseFunc
	hardEnd *time.Timer
	queued  int // links pushed to the scheduler and not handed out
	open    int // links pulled and not yet done
	// more: the last pull filled its batch, or links were queued for the
	// host since; a pull may find more.
	more      bool
	releasing bool // given up for another process, once its pages are done
}

// leaseSource is the frontier's work source in a shared crawl: it claims
// hosts, reads their queued links into the frontier, renews the leases,
// gives hosts up when they run dry or another process needs work, and
// finishes when nothing is queued anywhere for Shared.Idle. The frontier's
// politeness then applies within the process, and a host belongs to one
// process at a time, so per-host limits hold across processes together.
type leaseSource struct {
	q        workqueue.Queue
	worker   uuid.UUID
	f        leaseTarget
	ttl      time.Duration
	margin   time.Duration
	idle     time.Duration
	maxHosts int
	cutoff   time.Time
	scan     scanFunc
	// queriesAtStart is the queue's statement count when the run began.
	queriesAtStart int64

	wake chan struct{} // pokes the manager; buffered, one pending poke

	// flushMu makes flush calls one at a time. The crawler stores
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

func newLeaseSource(o *Options, f leaseTarget, cutoff time.Time, scan scanFunc) *leaseSource {
	s := o.Shared
	ttl := s.LeaseTTL
	return &leaseSource{
		queriesAtStart: s.Queue.Queries(),
		q:              s.Queue,
		worker:         uuid.New(),
		f:              f,
		ttl:            ttl,
		margin:         ttl / 4,
		idle:           s.Idle,
		maxHosts:       s.MaxHosts,
		cutoff:         cutoff,
		scan:           scan,
		wake:           make(chan struct{}, 1),
		hosts:          make(map[string]*heldHost),
		hostOf:         make(map[uuid.UUID]string),
		deleting:       make(map[uuid.UUID]string),
		cooldown:       make(map[string]time.Time),
		changed:        make(chan struct{}),
	}
}

// poke wakes the manager.
func (s *leaseSource) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// broadcastLocked wakes refill. s.mu must be held.
func (s *leaseSource) broadcastLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// leaseTarget is what the lease source needs of the frontier it feeds.
type leaseTarget interface {
	// welcome prepares for a host just leased.
	welcome(l workqueue.Lease)
	// pushPulled queues links read from the shared queue.
	pushPulled(links []workqueue.Link)
	// dropHost takes back the queued work of a host lost (its parked
	// pages abandoned) or handed over (its parked pages finished first).
	dropHost(host string, lost bool)
	// hostState reports whether host is idle, and when its next request
	// may start.
	hostState(host string) (idle bool, next time.Time)
	// idle reports whether nothing is queued or in flight.
	idle() bool
}

var _ workSource = (*leaseSource)(nil)

// owns implements workSource: the lease on a link's host decides.
func (s *leaseSource) owns(uuid.UUID) bool { return true }

// place implements workSource: a link in scope is queued in the shared
// queue (enqueue, written by flush), and also taken straight into the
// frontier when its host is held here and not too much of it is queued in
// memory. It still waits in the shared queue should this process die.
func (s *leaseSource) place(l linkgraph.Link, host string, depth int) placement {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.toEnqueue = append(s.toEnqueue, workqueue.Link{ID: l.ID, Host: host, Depth: depth})
	h := s.hosts[host]
	if h == nil || h.releasing || s.stopping || h.queued >= adoptMax {
		return elsewhere
	}
	if _, ok := s.hostOf[l.ID]; ok {
		return elsewhere
	}
	s.hostOf[l.ID] = host
	h.open++
	h.queued++
	return inScheduler
}

// leftovers implements workSource: the shared queue holds what earlier
// runs left, and the graph is read only when that queue is empty (a crawl
// starting over a graph made without one, or due again under
// RecrawlAfter).
func (s *leaseSource) leftovers(ctx context.Context) error {
	pending, err := s.q.Pending(ctx)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	if !pending {
		if _, err := s.scan(uuid.Nil, uuid.Nil); err != nil {
			return err
		}
	}
	return s.flush(ctx)
}

// may implements workSource: a host is this process's while it holds its
// lease, and a request may start while the lease is safely within its
// term.
func (s *leaseSource) may(host string) (held, start bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hosts[host]
	return h != nil, h != nil && time.Now().Before(h.deadline)
}

// fence implements workSource: a held host's requests end with its
// lease's term.
func (s *leaseSource) fence(host string) context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.hosts[host]; h != nil {
		return h.term
	}
	return nil
}

// extendLocked moves a held host's lease on after a claim or renewal sent
// at sent: requests may start until three quarters of the TTL past it, and
// run until the whole TTL has passed. s.mu must be held.
func (s *leaseSource) extendLocked(h *heldHost, sent time.Time) {
	h.deadline = sent.Add(s.ttl - s.margin)
	if h.hardEnd != nil && !h.hardEnd.Stop() {
		// The hard end came before the renewal's answer: the requests
		// of that term were cut, and a new term begins.
		h.term = nil
	}
	if h.term == nil || h.term.Err() != nil {
		h.term, h.endTerm = context.WithCancelCause(context.Background())
	}
	end := h.endTerm
	h.hardEnd = time.AfterFunc(time.Until(sent.Add(s.ttl)), func() { end(errLeaseEnded) })
}

// endLocked ends a host's lease term, cutting its requests. s.mu must be
// held.
func endLocked(h *heldHost) {
	if h.hardEnd != nil {
		h.hardEnd.Stop()
	}
	if h.endTerm != nil {
		h.endTerm(errLeaseEnded)
	}
}

// out implements workSource: a link pulled or adopted left the
// scheduler; one not crawled in this run (the run stops, or the host went
// away) stays queued.
func (s *leaseSource) out(id uuid.UUID, host string, crawled bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.hosts[host]; h != nil {
		h.queued--
		if h.queued <= pullBatch/4 {
			s.poke()
		}
	}
	if crawled {
		return
	}
	if host, ok := s.hostOf[id]; ok {
		delete(s.hostOf, id)
		if h := s.hosts[host]; h != nil {
			h.open--
		}
	}
	s.poke()
}

// queries implements workSource.
func (s *leaseSource) queries() int64 {
	return s.q.Queries() - s.queriesAtStart
}

// finished records a page's outcome: handled pages leave the queue; pages
// the run gave up on (cancelled, abandoned) stay for whoever runs next.
func (s *leaseSource) finished(out crawler.Outcome) {
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
	switch out.Reason {
	case crawler.ReasonCanceled, crawler.ReasonDropped, crawler.ReasonWithdrawn:
		// Not handled: due for whoever runs next, or holds the host now.
	default:
		s.deleteLocked(out.LinkID, host)
	}
	s.poke()
}

// stop ends claiming and pulling; held hosts are released as their pages
// finish.
func (s *leaseSource) stop() {
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
func (s *leaseSource) refill(ctx context.Context) bool {
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

// close ends the shared work of the run: handled links are removed, every
// held host is released (its queued links stay for others) and the
// process leaves the crawl. It runs after the crawl, with its own time
// limit, since the run's context may be over.
func (s *leaseSource) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.flushDone(ctx, true)
	s.mu.Lock()
	hosts := make([]string, 0, len(s.hosts))
	for name, h := range s.hosts {
		endLocked(h)
		hosts = append(hosts, name)
	}
	s.hosts = map[string]*heldHost{}
	s.mu.Unlock()
	for _, h := range hosts {
		_, next := s.f.hostState(h)
		err = errors.Join(err, s.q.Release(ctx, s.worker, h, time.Until(next)))
	}
	err = errors.Join(err, s.q.Leave(ctx, s.worker))
	err = errors.Join(err, s.q.Close())
	return err
}

// saveRobots shares a robots.txt fetched for a held host.
func (s *leaseSource) saveRobots(host string, rc workqueue.Robots) {
	if held, _ := s.may(host); !held {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.q.SaveRobots(ctx, host, rc); err != nil {
		slog.Warn("shared crawl: saving robots.txt", "host", host, "err", err)
	}
}

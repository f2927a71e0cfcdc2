package politeness

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/linksrus/linksrus/internal/ctxtime"
)

// Defaults of Options.
const (
	DefaultMaxInFlight = 2
	DefaultMaxQueued   = 100000
	DefaultIdleTTL     = 5 * time.Minute
)

// Options configure a Scheduler. Zero fields take their defaults.
type Options struct {
	// MaxInFlight is the number of requests allowed at once per host.
	// Default 2, the customary limit for polite crawlers and browsers of
	// old (RFC 2616 8.1.4).
	MaxInFlight int
	// MinDelay is the minimum time between the starts of two requests to
	// one host. A host's robots.txt Crawl-delay (SetDelay) raises it for
	// that host. Default 0: only the in-flight limit applies.
	MinDelay time.Duration
	// MaxQueued bounds the items queued across all hosts; Push blocks when
	// it is reached. Default 100000.
	MaxQueued int
	// Levels is the number of priority levels of PushPriority (0 is the
	// highest). Default 1.
	Levels int
	// IdleTTL is how long the state of a host with nothing queued or in
	// flight is kept (including its Crawl-delay) before it is dropped.
	// Default 5 minutes, longer than any sensible Crawl-delay.
	IdleTTL time.Duration
}

// Sentinel errors; match them with errors.Is.
var (
	// ErrClosed is returned by Push after Close, and by Next once the
	// scheduler is closed and drained.
	ErrClosed = errors.New("politeness: scheduler closed")
	// ErrPriority is returned by PushPriority for a priority outside
	// [0, Options.Levels).
	ErrPriority = errors.New("politeness: priority out of range")
	// ErrOptions is wrapped by NewScheduler for invalid Options.
	ErrOptions = errors.New("politeness: invalid options")
)

// Scheduler is a per-host polite work queue; see the package documentation.
// It is safe for concurrent use.
type Scheduler[T any] struct {
	opts Options

	mu    sync.Mutex
	hosts map[string]*hostState[T]
	// ready[l] lists, round-robin, the hosts that can start a request now
	// and whose best queued item has priority l. Entries whose host has
	// since moved (readyLevel changed or no longer ready) are stale and
	// skipped.
	ready   [][]*hostState[T]
	waiting delayHeap[T] // hosts with work and a free slot, but in their delay
	total   int          // items queued across hosts
	closed  bool
	// changed is closed whenever something a waiter may be waiting for
	// happens: an item queued, a slot freed, space freed, Close. It is
	// created only when someone waits, so a busy scheduler allocates none.
	changed   chan struct{}
	lastSweep time.Time
}

// Where a host is scheduled.
const (
	nowhere = iota
	inReady
	inWaiting
)

// hostState is the per-host bookkeeping.
type hostState[T any] struct {
	name      string
	queues    [][]T // per priority level, FIFO
	queued    int
	inFlight  int
	nextStart time.Time     // earliest start of the next request
	delay     time.Duration // robots.txt Crawl-delay
	// pending counts leases handed out whose request has not started
	// (Lease.Start): they hold a slot, and under a delay they hold the
	// host's turn, since the delay runs from the moment a request starts.
	pending int
	// paused hosts hand out no queued items (Pause); requests outside the
	// queue (Acquire) still go.
	paused bool
	// acquiring counts Acquire calls waiting for a slot on the host. The
	// next slot freed is theirs: no queued item is handed out (Next) and
	// TryAcquire fails meanwhile. The few requests made outside the queue
	// (robots.txt, a sitemap) decide what the queued pages do, and a busy
	// queue, whose workers retake every slot the moment it is freed, would
	// otherwise keep them waiting behind all of its items.
	acquiring  int
	idleSince  time.Time
	where      int
	readyLevel int // the ready list h is in, if where == inReady
	heapIdx    int
}

// best returns the highest-priority level with items; h.queued must be > 0.
func (h *hostState[T]) best() int {
	for l, q := range h.queues {
		if len(q) > 0 {
			return l
		}
	}
	return -1
}

// NewScheduler returns an empty Scheduler.
func NewScheduler[T any](opts Options) (*Scheduler[T], error) {
	if opts.MaxInFlight < 0 || opts.MinDelay < 0 || opts.MaxQueued < 0 || opts.IdleTTL < 0 || opts.Levels < 0 {
		return nil, fmt.Errorf("%w: negative value in %+v", ErrOptions, opts)
	}
	if opts.MaxInFlight == 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	if opts.MaxQueued == 0 {
		opts.MaxQueued = DefaultMaxQueued
	}
	if opts.IdleTTL == 0 {
		opts.IdleTTL = DefaultIdleTTL
	}
	if opts.Levels == 0 {
		opts.Levels = 1
	}
	return &Scheduler[T]{
		opts:      opts,
		ready:     make([][]*hostState[T], opts.Levels),
		hosts:     make(map[string]*hostState[T]),
		lastSweep: time.Now(),
	}, nil
}

// Push queues v for host at priority 0 (use the URL's host, with port if
// any, as the politeness unit). It blocks while MaxQueued items are queued,
// and returns ErrClosed after Close or the context's error if ctx ends first.
func (s *Scheduler[T]) Push(ctx context.Context, host string, v T) error {
	return s.PushPriority(ctx, host, 0, v)
}

// PushPriority is Push at a priority in [0, Options.Levels), 0 being the
// highest: among hosts that are ready, Next serves the one whose best
// queued item has the highest priority, and within a host the items of a
// higher priority first. A ready host never waits for a busy one, whatever
// their priorities: politeness comes before priority.
func (s *Scheduler[T]) PushPriority(ctx context.Context, host string, priority int, v T) error {
	if priority < 0 || priority >= s.opts.Levels {
		return fmt.Errorf("politeness: push for %s at priority %d of %d levels: %w", host, priority, s.opts.Levels, ErrPriority)
	}
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return ErrClosed
		}
		if s.total < s.opts.MaxQueued {
			now := time.Now()
			h := s.host(host, now)
			h.queues[priority] = append(h.queues[priority], v)
			h.queued++
			s.total++
			if h.where == inReady && priority < h.readyLevel {
				// Promote h; its entry in the lower list becomes stale.
				h.readyLevel = priority
				s.ready[priority] = append(s.ready[priority], h)
			}
			s.schedule(h, now)
			s.broadcast()
			s.sweep(now)
			s.mu.Unlock()
			return nil
		}
		wait := s.waitChan()
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return fmt.Errorf("politeness: push for %s: %w", host, ctx.Err())
		}
	}
}

// Lease is an item handed out by Next, holding a request slot on its host.
// Call Start at the moment its request is sent, and Release when the
// response has been read (or at once if no request is sent), to free the
// slot.
type Lease[T any] struct {
	// Value is the item as pushed.
	Value T
	// Host is the host it was pushed under.
	Host string

	s       *Scheduler[T]
	h       *hostState[T]
	started bool
	done    bool
}

// Start records that the lease's request starts now: the host's delay is
// counted from this moment, not from when Next handed the item out, so an
// item that waits in a buffer between the two cannot bring two requests
// closer than the delay. It is idempotent, and a no-op after Release.
func (l *Lease[T]) Start() {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	if l.started || l.done {
		return
	}
	l.started = true
	now := time.Now()
	l.h.pending--
	l.h.nextStart = now.Add(l.s.delayOf(l.h))
	l.s.reschedule(l.h, now)
	l.s.broadcast()
}

// Release frees the host slot taken by the lease. It is safe to call more
// than once; only the first call counts. A lease released without Start
// sent no request, so it does not count against the host's delay.
func (l *Lease[T]) Release() {
	l.s.mu.Lock()
	if l.done {
		l.s.mu.Unlock()
		return
	}
	l.done = true
	if !l.started {
		l.h.pending--
	}
	l.s.mu.Unlock()
	l.s.finish(l.h)
}

// Next returns the next item whose host is ready: fewer than MaxInFlight
// requests in flight and the host's delay elapsed since its last request
// start. It takes the ready host with the highest-priority item, hosts of
// equal priority in turn (round-robin), and within a host the oldest item
// of its highest priority.
// It blocks until an item is ready, ctx ends (its error is returned) or the
// scheduler is closed and drained (ErrClosed).
func (s *Scheduler[T]) Next(ctx context.Context) (*Lease[T], error) {
	for {
		s.mu.Lock()
		now := time.Now()
		for len(s.waiting) > 0 && !now.Before(s.waiting[0].nextStart) {
			h := heap.Pop(&s.waiting).(*hostState[T])
			h.where = nowhere
			s.schedule(h, now)
		}
		for h, level := s.popReady(); h != nil; h, level = s.popReady() {
			h.where = nowhere
			if !s.canHandOut(h, now) {
				// Acquire took the slot since h was scheduled.
				s.schedule(h, now)
				continue
			}
			q := h.queues[level]
			v := q[0]
			var zero T
			q[0] = zero
			h.queues[level] = q[1:]
			h.queued--
			s.total--
			h.inFlight++
			h.pending++
			s.schedule(h, now)
			s.broadcast() // queue space freed for blocked pushers
			s.mu.Unlock()
			return &Lease[T]{Value: v, Host: h.name, s: s, h: h}, nil
		}
		if s.closed && s.total == 0 {
			s.mu.Unlock()
			return nil, ErrClosed
		}
		wait := s.waitChan()
		d := ctxtime.Forever
		if len(s.waiting) > 0 {
			d = s.waiting[0].nextStart.Sub(now)
		}
		s.mu.Unlock()
		if err := ctxtime.SleepOrWake(ctx, wait, d); err != nil {
			return nil, fmt.Errorf("politeness: next: %w", err)
		}
	}
}

// Acquire takes a request slot on host for a request that is not a queued
// item (a redirect hop, a robots.txt fetch), blocking until the host is
// ready or ctx ends. Call the returned release when the request is done; it
// is idempotent. Acquire keeps working after Close, so that requests of
// items already handed out can finish.
func (s *Scheduler[T]) Acquire(ctx context.Context, host string) (release func(), err error) {
	waiting := false // counted in h.acquiring
	for {
		s.mu.Lock()
		now := time.Now()
		h := s.host(host, now)
		if s.canStart(h, now) {
			release := s.start(h, now)
			if waiting {
				h.acquiring--
				s.schedule(h, now) // its queued items may go again
			}
			s.mu.Unlock()
			return release, nil
		}
		if !waiting {
			waiting = true
			h.acquiring++
		}
		wait := s.waitChan()
		d := ctxtime.Forever
		if h.inFlight < s.opts.MaxInFlight {
			d = h.nextStart.Sub(now)
		}
		s.mu.Unlock()
		if err := ctxtime.SleepOrWake(ctx, wait, d); err != nil {
			s.mu.Lock()
			h.acquiring--
			s.schedule(h, time.Now())
			s.broadcast()
			s.mu.Unlock()
			return nil, fmt.Errorf("politeness: acquire %s: %w", host, err)
		}
	}
}

// TryAcquire is Acquire without the wait: it takes a request slot on host
// and starts its delay if the host can take a request now, and otherwise
// reports false and the earliest time worth asking again (the zero time
// when only a slot being freed can help). It never blocks, so a fetch
// worker that finds a host busy can put its work back and fetch something
// else.
func (s *Scheduler[T]) TryAcquire(host string) (release func(), retryAt time.Time, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	h := s.host(host, now)
	if h.acquiring == 0 && s.canStart(h, now) {
		return s.start(h, now), time.Time{}, true
	}
	if h.inFlight < s.opts.MaxInFlight && now.Before(h.nextStart) {
		return nil, h.nextStart, false
	}
	return nil, time.Time{}, false
}

// Defer keeps host from starting any request before until: for a server
// that asked to be left alone (Retry-After) or is failing (a retry's
// backoff). An earlier until than the host's current next start is a no-op.
func (s *Scheduler[T]) Defer(host string, until time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	h := s.host(host, now)
	if until.After(h.nextStart) {
		h.nextStart = until
		s.reschedule(h, now)
	}
}

// Pause stops Next from handing out host's queued items until Resume;
// Acquire and TryAcquire are not affected, so that the request the pause
// waits for (its robots.txt, say) can be made. Pushes are still accepted.
func (s *Scheduler[T]) Pause(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	h := s.host(host, now)
	h.paused = true
	s.reschedule(h, now)
}

// Resume undoes Pause.
func (s *Scheduler[T]) Resume(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	h := s.host(host, now)
	if h.paused {
		h.paused = false
		s.reschedule(h, now)
		s.broadcast()
	}
}

// SetDelay sets host's robots.txt Crawl-delay; the host's effective delay
// is the larger of it and MinDelay. The value lives as long as the host's
// state (see Options.IdleTTL), so set it whenever a robots.txt decision for
// the host is obtained. It applies from the next request start on.
func (s *Scheduler[T]) SetDelay(host string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.host(host, time.Now())
	h.delay = max(d, 0)
}

// Drain removes every queued item, ready or not, and returns them, for a
// caller that stops and must account for what was left.
func (s *Scheduler[T]) Drain() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []T
	now := time.Now()
	for _, h := range s.hosts {
		for l, q := range h.queues {
			out = append(out, q...)
			h.queues[l] = nil
		}
		s.total -= h.queued
		h.queued = 0
		s.reschedule(h, now)
	}
	s.broadcast()
	return out
}

// DrainHost removes host's queued items and returns them: for a caller
// that gives the host up (another process takes it over) and must account
// for what it had queued.
func (s *Scheduler[T]) DrainHost(host string) []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.hosts[host]
	if !ok || h.queued == 0 {
		return nil
	}
	var out []T
	for l, q := range h.queues {
		out = append(out, q...)
		h.queues[l] = nil
	}
	s.total -= h.queued
	h.queued = 0
	s.reschedule(h, time.Now())
	s.broadcast()
	return out
}

// HostState reports whether host is idle (nothing queued, no slot taken)
// and the earliest start of its next request under its delay: what a
// caller handing the host over to someone else must pass on.
func (s *Scheduler[T]) HostState(host string) (idle bool, nextStart time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.hosts[host]
	if !ok {
		return true, time.Time{}
	}
	return h.queued == 0 && h.inFlight == 0, h.nextStart
}

// Len returns the number of queued items.
func (s *Scheduler[T]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Hosts returns the number of hosts with state (queued, in flight, or
// idle for less than IdleTTL).
func (s *Scheduler[T]) Hosts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(time.Now())
	return len(s.hosts)
}

// Close stops Push from accepting items. Next keeps handing out the items
// already queued and then returns ErrClosed. It is safe to call more than
// once.
func (s *Scheduler[T]) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.broadcast()
	}
}

// host returns the state of name, creating it. s.mu must be held.
func (s *Scheduler[T]) host(name string, now time.Time) *hostState[T] {
	h, ok := s.hosts[name]
	if !ok {
		h = &hostState[T]{name: name, idleSince: now, heapIdx: -1, queues: make([][]T, s.opts.Levels)}
		s.hosts[name] = h
	}
	return h
}

// canStart reports whether a request outside the queue may start on h
// now: a free slot, the delay elapsed, and under a delay no lease handed
// out and waiting to start (it has the host's turn). s.mu must be held.
func (s *Scheduler[T]) canStart(h *hostState[T], now time.Time) bool {
	return h.inFlight < s.opts.MaxInFlight && !now.Before(h.nextStart) &&
		(h.pending == 0 || s.delayOf(h) == 0)
}

// canHandOut reports whether Next may hand out one of h's items now.
// s.mu must be held.
func (s *Scheduler[T]) canHandOut(h *hostState[T], now time.Time) bool {
	return !h.paused && h.acquiring == 0 && s.canStart(h, now)
}

// delayOf is h's effective delay. s.mu must be held.
func (s *Scheduler[T]) delayOf(h *hostState[T]) time.Duration {
	return max(s.opts.MinDelay, h.delay)
}

// reschedule takes h out of the ready list or the delay heap and schedules
// it again, after a change to its start time or pause. s.mu must be held.
func (s *Scheduler[T]) reschedule(h *hostState[T], now time.Time) {
	if h.where == inWaiting {
		heap.Remove(&s.waiting, h.heapIdx)
	}
	h.where = nowhere // a ready-list entry becomes stale
	s.schedule(h, now)
}

// start takes a slot on h and starts its delay, and returns the slot's
// idempotent release. s.mu must be held.
func (s *Scheduler[T]) start(h *hostState[T], now time.Time) func() {
	h.inFlight++
	h.nextStart = now.Add(s.delayOf(h))
	var once sync.Once
	return func() { once.Do(func() { s.finish(h) }) }
}

// finish frees a slot on h.
func (s *Scheduler[T]) finish(h *hostState[T]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	h.inFlight--
	if h.inFlight == 0 && h.queued == 0 {
		h.idleSince = now
	}
	s.schedule(h, now)
	s.broadcast()
	s.sweep(now)
}

// schedule puts h in the ready list or the delay heap if it has work and a
// free slot and is not scheduled yet. s.mu must be held.
func (s *Scheduler[T]) schedule(h *hostState[T], now time.Time) {
	if h.where != nowhere || h.queued == 0 || h.inFlight >= s.opts.MaxInFlight || h.paused ||
		h.acquiring > 0 || (h.pending > 0 && s.delayOf(h) > 0) {
		// Not schedulable until a slot is freed, Resume, the pending
		// lease starts or the waiting Acquire gets its slot; each of
		// those schedules h again.
		return
	}
	if now.Before(h.nextStart) {
		h.where = inWaiting
		heap.Push(&s.waiting, h)
		return
	}
	h.where = inReady
	h.readyLevel = h.best()
	s.ready[h.readyLevel] = append(s.ready[h.readyLevel], h)
}

// popReady removes and returns the first live entry of the highest
// non-empty ready list and its level, or nil. s.mu must be held.
func (s *Scheduler[T]) popReady() (*hostState[T], int) {
	for l := range s.ready {
		for len(s.ready[l]) > 0 {
			h := s.ready[l][0]
			s.ready[l][0] = nil
			s.ready[l] = s.ready[l][1:]
			if h.where == inReady && h.readyLevel == l {
				return h, l
			}
		}
	}
	return nil, 0
}

// waitChan returns the channel the next broadcast closes. s.mu must be held.
func (s *Scheduler[T]) waitChan() <-chan struct{} {
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

// broadcast wakes every goroutine waiting on s.changed. s.mu must be held.
func (s *Scheduler[T]) broadcast() {
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// sweep drops hosts idle for IdleTTL, at most twice per IdleTTL so its cost
// is amortised. s.mu must be held.
func (s *Scheduler[T]) sweep(now time.Time) {
	if now.Sub(s.lastSweep) < s.opts.IdleTTL/2 {
		return
	}
	s.lastSweep = now
	for name, h := range s.hosts {
		if h.where == nowhere && h.inFlight == 0 && h.queued == 0 && !h.paused && h.acquiring == 0 &&
			now.Sub(h.idleSince) >= s.opts.IdleTTL && !now.Before(h.nextStart) {
			delete(s.hosts, name)
		}
	}
}

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
	// UntilSent makes a request started under a delay hold its host's
	// turn until Sent reports it written to its connection (or it is
	// released), and counts the delay again from then. A request held up
	// between its start and its write (a slow dial, a goroutine paused on
	// a loaded machine) then cannot bring the next request closer than
	// the delay. Set it only if every request's write is reported
	// (httptrace's WroteRequest): otherwise a host takes its next request
	// only once the previous one is released.
	UntilSent bool
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

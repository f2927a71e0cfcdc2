package politeness

import (
	"context"
	"fmt"
	"time"

	"github.com/linksrus/linksrus/internal/ctxtime"
)

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
	l.h.unsent++
	l.h.nextStart = now.Add(l.s.delayOf(l.h))
	l.s.reschedule(l.h, now)
	l.s.broadcast()
}

// Sent records that a request started on host (Lease.Start, Acquire,
// TryAcquire) has been written to its connection: the host's delay runs
// again from now, and with Options.UntilSent the next request may start
// (the unsent one held the host's turn). Call it from the request's
// httptrace.ClientTrace.WroteRequest; a request released unsent gives its
// turn back on Release. A call for a host with nothing unsent (a getter
// that followed a redirect on its own) only moves the delay on.
func (s *Scheduler[T]) Sent(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	h := s.host(host, now)
	h.unsent = max(h.unsent-1, 0)
	if next := now.Add(s.delayOf(h)); next.After(h.nextStart) {
		h.nextStart = next
	}
	s.reschedule(h, now)
	s.broadcast()
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
		// Only the delay passing is waited for by the clock: a slot
		// freed, a lease started or a request sent broadcasts.
		d := ctxtime.Forever
		if h.inFlight < s.opts.MaxInFlight && (h.pending == 0 && !s.holdsTurn(h) || s.delayOf(h) == 0) {
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

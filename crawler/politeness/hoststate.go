package politeness

import (
	"container/heap"
	"sync"
	"time"
)

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
	// unsent counts requests started (Lease.Start, Acquire, TryAcquire)
	// and not yet written to the connection (Sent); with
	// Options.UntilSent, under a delay, the one unsent holds the host's
	// turn.
	unsent int
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
		(h.pending == 0 && !s.holdsTurn(h) || s.delayOf(h) == 0)
}

// canHandOut reports whether Next may hand out one of h's items now.
// s.mu must be held.
func (s *Scheduler[T]) canHandOut(h *hostState[T], now time.Time) bool {
	return !h.paused && h.acquiring == 0 && s.canStart(h, now)
}

// holdsTurn reports whether a request of h started and not yet sent holds
// the host's turn (Options.UntilSent). s.mu must be held.
func (s *Scheduler[T]) holdsTurn(h *hostState[T]) bool {
	return s.opts.UntilSent && h.unsent > 0
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
	h.unsent++
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
	// A request released unsent (it failed before its write) gives its
	// turn back: under a delay, the one unsent is the one started last,
	// and any other request in flight was sent before it started.
	h.unsent = min(h.unsent, h.inFlight-h.pending)
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
		h.acquiring > 0 || ((h.pending > 0 || s.holdsTurn(h)) && s.delayOf(h) > 0) {
		// Not schedulable until a slot is freed, Resume, the pending
		// lease starts and is sent or the waiting Acquire gets its slot;
		// each of those schedules h again.
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

package politeness

import "time"

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

// DeferPastDelay keeps host from starting any request before its delay
// has passed since at: for a host whose last request may have been
// written at at by somebody else (a shared crawl's previous owner of the
// host), counted with the delay this scheduler keeps for it, its
// robots.txt Crawl-delay included.
func (s *Scheduler[T]) DeferPastDelay(host string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	h := s.host(host, now)
	if until := at.Add(s.delayOf(h)); until.After(h.nextStart) {
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

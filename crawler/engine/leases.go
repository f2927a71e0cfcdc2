package engine

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler/workqueue"
	"github.com/linksrus/linksrus/internal/ctxtime"
)

// run is the manager: it keeps the leases and the frontier's supply of
// links until ctx ends. Database errors are retried on the next round; a
// lease that cannot be renewed in time is given up.
func (s *leaseSource) run(ctx context.Context) {
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
	lastLimit := 0
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
		if limit > lastLimit {
			// A larger share (a process left, or died and is no longer
			// seen, or hosts were queued): its hosts are worth asking for
			// now, not after a back-off grown while every host was held.
			// A dead process's leases expire about when it stops being
			// seen, so this is what makes a takeover prompt.
			claimWait, nextClaim = 0, now
		}
		lastLimit = limit
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
func (s *leaseSource) listen(ctx context.Context, notified chan<- struct{}) {
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
func (s *leaseSource) counts() (held, limit int, stopping bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.hosts), s.limitLocked(), s.stopping
}

// limitLocked is the most hosts to hold now: the share, within MaxHosts.
// s.mu must be held.
func (s *leaseSource) limitLocked() int {
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
func (s *leaseSource) checkOver(ctx context.Context, idleSince *time.Time) time.Time {
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
func (s *leaseSource) claim(ctx context.Context, n int) (int, error) {
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
	leases, err := s.q.Claim(ctx, s.worker, n, s.ttl, skip)
	if err != nil {
		return 0, err
	}
	for _, l := range leases {
		s.mu.Lock()
		if old := s.hosts[l.Host]; old != nil {
			// Its own expired lease, claimed again: a new term.
			endLocked(old)
		}
		h := &heldHost{since: sent, more: true}
		s.extendLocked(h, sent)
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
func (s *leaseSource) renew(ctx context.Context) {
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
func (s *leaseSource) renewed(sent, kept []string, at time.Time) {
	s.mu.Lock()
	var lost []string
	for _, h := range sent {
		hh := s.hosts[h]
		if hh == nil {
			continue
		}
		if slices.Contains(kept, h) {
			s.extendLocked(hh, at)
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
func (s *leaseSource) dropExpired() {
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
func (s *leaseSource) lose(host string) {
	s.mu.Lock()
	if h := s.hosts[host]; h != nil {
		endLocked(h)
	}
	delete(s.hosts, host)
	s.mu.Unlock()
	s.f.dropHost(host, true)
}

// give gives n hosts, those held longest, to other processes: no more of
// their links are handed out, and each is released once its pages are
// done.
func (s *leaseSource) give(n int) {
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
func (s *leaseSource) tend(ctx context.Context) {
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
func (s *leaseSource) pulled(ctx context.Context, host string, links []workqueue.Link) {
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
func (s *leaseSource) release(ctx context.Context, host string) {
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
	endLocked(h)
	delete(s.hosts, host)
	s.mu.Unlock()
	if err := s.q.Release(ctx, s.worker, host, time.Until(next)); err != nil {
		warnUnlessDone(ctx, "shared crawl: releasing host", "host", host, "err", err)
	}
}

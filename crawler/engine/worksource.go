package engine

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/internal/ctxtime"
	"github.com/linksrus/linksrus/linkgraph"
)

// workSource is where a run's work comes from, beyond its seeds, and where
// the links it finds wait. The frontier paces what it is given and asks
// nothing about the mode of the crawl; each mode is one implementation:
//
//	localSource      one process: every link waits in the frontier
//	partitionSource  one process's share of the graph's ID space
//	leaseSource      hosts leased from a queue shared by processes
type workSource interface {
	// owns reports whether a link is this process's to crawl.
	owns(id uuid.UUID) bool
	// place receives a link in scope claimed in this run (not a redirect
	// target) and says where it waits.
	place(l linkgraph.Link, host string, depth int) placement
	// flush makes the links placed elsewhere durable. It is called before
	// the pages that found them are marked retrieved, so that a crash
	// cannot lose the links of a page it crawled.
	flush(ctx context.Context) error
	// leftovers queues, at the start of a run, what earlier runs left due.
	leftovers(ctx context.Context) error
	// refill is asked when nothing is queued or in flight: it waits for
	// more work and reports whether some may have come.
	refill(ctx context.Context) bool
	// may reports whether host is this process's to fetch (held), and
	// whether a request to it may start now.
	may(host string) (held, start bool)
	// fence returns the context a request to host runs under, ended (and
	// the request cut) once this process may no longer send the host
	// requests; nil when nothing ends them but the request's own.
	fence(host string) context.Context
	// out is told when a link the source placed in the frontier leaves
	// its queue: to be crawled now, or not in this run (the run stopped,
	// or the page is crawled already).
	out(id uuid.UUID, host string, crawled bool)
	// finished receives the outcome of every page handed out.
	finished(o crawler.Outcome)
	// run does the source's own work until ctx ends.
	run(ctx context.Context)
	// stop ends the taking of new work; held work is finished.
	stop()
	// close gives back what the source holds, once the crawl is over.
	close() error
	// queries returns the statements the run sent to a shared queue that
	// counts them (Summary.SharedQueries).
	queries() int64
}

// placement is where a link handed to a workSource waits.
type placement int

const (
	// inFrontier: the frontier queues it, in memory or spilled; once the
	// run has stopped, the graph keeps it for the next run.
	inFrontier placement = iota
	// inScheduler: the frontier pushes it to its scheduler now, never to
	// the spill file: the source counts the link as queued there.
	inScheduler
	// elsewhere: the source keeps it (a shared queue).
	elsewhere
)

// scanFunc queues the links of the graph with IDs in [from, to) (a zero
// to: to the end) that are due, in scope and not queued in this run yet;
// it returns how many it queued (Run.queuePending).
type scanFunc func(from, to uuid.UUID) (int, error)

// newWorkSource returns the work source of the run's mode: the one place
// that tells the modes apart.
func (r *Run) newWorkSource() workSource {
	o := &r.opts
	switch {
	case o.Shared != nil:
		s := newLeaseSource(o, r.frontier, r.cutoff, r.queuePending)
		if r.frontier.robots != nil {
			r.frontier.robots.share = s.saveRobots
		}
		return s
	case o.Partition != nil:
		return &partitionSource{localSource: localSource{scan: r.queuePending}, p: *o.Partition}
	default:
		return localSource{scan: r.queuePending}
	}
}

// localSource is the work source of a crawl by one process alone: the
// frontier holds every link, and the graph what a run leaves.
type localSource struct{ scan scanFunc }

func (localSource) owns(uuid.UUID) bool                         { return true }
func (localSource) place(linkgraph.Link, string, int) placement { return inFrontier }
func (localSource) flush(context.Context) error                 { return nil }
func (localSource) refill(context.Context) bool                 { return false }
func (localSource) may(string) (bool, bool)                     { return true, true }
func (localSource) fence(string) context.Context                { return nil }
func (localSource) out(uuid.UUID, string, bool)                 {}
func (localSource) finished(crawler.Outcome)                    {}
func (localSource) run(context.Context)                         {}
func (localSource) stop()                                       {}
func (localSource) close() error                                { return nil }
func (localSource) queries() int64                              { return 0 }
func (s localSource) leftovers(context.Context) error {
	_, err := s.scan(uuid.Nil, uuid.Nil)
	return err
}

// partitionSource is the work source of one process of a partitioned
// crawl: it crawls the links of its share of the ID space, and when it has
// none left it polls the graph for those the other processes found in its
// share, until Partition.Idle passes without any.
type partitionSource struct {
	localSource
	p Partition
}

func (s *partitionSource) owns(id uuid.UUID) bool { return s.p.Contains(id) }

func (s *partitionSource) leftovers(context.Context) error {
	_, err := s.scan(s.p.From, s.p.To)
	return err
}

func (s *partitionSource) refill(ctx context.Context) bool {
	const poll = 200 * time.Millisecond
	deadline := time.Now().Add(s.p.Idle)
	for {
		n, err := s.scan(s.p.From, s.p.To)
		if err != nil {
			slog.Warn("polling the graph for new links", "err", err)
		}
		if n > 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		if ctxtime.Sleep(ctx, poll) != nil {
			return false
		}
	}
}

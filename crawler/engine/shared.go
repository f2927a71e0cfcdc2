package engine

import (
	"fmt"
	"time"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/workqueue"
)

// Shared configures a crawl whose work is shared with other processes
// through a workqueue.Queue (see Options.Shared).
type Shared struct {
	// Queue is the shared work. Default: the queue of Options.Graph,
	// which must then be a workqueue.Provider (a PostgreSQL graph is).
	Queue workqueue.Queue
	// LeaseTTL is how long a host lease lasts unless renewed: how soon a
	// dead process's hosts go to the others. Leases are renewed every
	// LeaseTTL/4; a process starts no request on a host once 3/4 of
	// LeaseTTL have passed (by its own monotonic clock) since the renewal
	// was sent, and cuts those still running once all of it has, so that
	// a process that cannot renew does not overlap the next owner. That
	// owner starts after the expiry and the host's delay: a dead
	// process's hosts are taken over within LeaseTTL of its death and the
	// claim back-off (at most 2 s), whatever
	// crawler.FetchOptions.FetchTimeout. Default: DefaultLeaseTTL.
	LeaseTTL time.Duration
	// Idle is how long a process waits, once no link is queued anywhere
	// in the crawl, before it finishes. Default: DefaultSharedIdle.
	Idle time.Duration
	// MaxHosts is the most hosts one process holds at once. Default: 4 ×
	// Workers.
	MaxHosts int
}

// withDefaults returns a copy of s with its defaults filled in: the Queue
// taken from g when s has none, MaxHosts from the run's fetch workers.
func (s Shared) withDefaults(g Graph, workers int) (*Shared, error) {
	if s.Queue == nil {
		p, ok := g.(workqueue.Provider)
		if !ok {
			return nil, fmt.Errorf("%w: %w", ErrOptions, &crawler.OptionError{Field: "Options.Shared.Queue",
				Problem: fmt.Sprintf("is required unless the Graph keeps one (workqueue.Provider, such as a PostgreSQL graph); %T does not", g)})
		}
		s.Queue = p.WorkQueue()
	}
	if s.LeaseTTL == 0 {
		s.LeaseTTL = DefaultLeaseTTL
	}
	if s.Idle == 0 {
		s.Idle = DefaultSharedIdle
	}
	if s.MaxHosts == 0 {
		s.MaxHosts = 4 * workers
	}
	return &s, nil
}

// Defaults of a shared crawl.
const (
	DefaultLeaseTTL   = 30 * time.Second
	DefaultSharedIdle = 5 * time.Second
)

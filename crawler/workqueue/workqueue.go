// Package workqueue is the contract of a crawl whose work several
// processes share: the links due, queued by host, and a lease per host that
// lets one process at a time send the host requests. The crawl engine
// consumes a Queue (crawler/engine's Options.Shared); a store that can keep
// one for the processes crawling it implements Provider (package
// linkgraph/postgres does, over PostgreSQL, in the graph's own database).
//
// The types here are what crosses that boundary. Times in them (a lease's
// expiry, a host's next request) are the database's, so that processes on
// machines whose clocks disagree still take turns on a host.
package workqueue

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler/robots"
)

// Queue is the work of a crawl shared by several processes, kept in the
// database they share: the links due, by host, and a lease per host that
// lets one process at a time send the host requests. Times in it (lease
// expiry, a host's next request) are the database's. Its methods are safe
// for concurrent use.
type Queue interface {
	// Enqueue adds links under their hosts; links queued before are kept.
	Enqueue(ctx context.Context, links []Link) error
	// Claim leases up to n hosts with queued links that nobody holds to
	// worker for ttl, except those in skip. Its holder ends its requests
	// to a host by the lease's expiry (see Lease.Expired).
	Claim(ctx context.Context, worker uuid.UUID, n int, ttl time.Duration, skip []string) ([]Lease, error)
	// Renew extends worker's leases and returns the hosts it still holds.
	Renew(ctx context.Context, worker uuid.UUID, hosts []string, ttl time.Duration) ([]string, error)
	// Release gives a host up; its next request may start after wait.
	Release(ctx context.Context, worker uuid.UUID, host string, wait time.Duration) error
	// Pull reads up to n links queued under host, except those in skip.
	Pull(ctx context.Context, host string, skip []uuid.UUID, n int) ([]Link, error)
	// Done removes handled links.
	Done(ctx context.Context, ids []uuid.UUID) error
	// Pending reports whether any link is queued at all.
	Pending(ctx context.Context) (bool, error)
	// Heartbeat records worker's status and returns the crawl's.
	Heartbeat(ctx context.Context, worker uuid.UUID, s WorkerStatus, alive time.Duration) (Status, error)
	// Leave removes worker from the live processes.
	Leave(ctx context.Context, worker uuid.UUID) error
	// SaveRobots caches a host's robots.txt for the others.
	SaveRobots(ctx context.Context, host string, r Robots) error
	// WaitForWork waits up to d for a sign that work may be available,
	// and reports whether one came.
	WaitForWork(ctx context.Context, d time.Duration) (bool, error)
	// Queries returns the statements sent to the database so far (the
	// engine reports a run's as Summary.SharedQueries).
	Queries() int64
	// Close gives back what waiting for work holds (a listening
	// connection); the engine calls it at the end of each run, and the
	// queue stays usable after it.
	Close() error
}

// Provider is a store that keeps a shared crawl queue beside its data, such
// as a graph in a database several crawl processes reach. Passed as the
// crawl engine's graph, it lets a shared crawl find its queue on its own.
type Provider interface {
	// WorkQueue returns a queue of the store's shared crawl. Each call
	// returns a queue of its own (its own wait for work) over the same
	// shared work.
	WorkQueue() Queue
}

// Link is a link waiting in a shared crawl queue under its host.
type Link struct {
	// ID is the link's ID in the graph.
	ID uuid.UUID
	// Host is the URL's host (and port), the unit of politeness and of
	// leases.
	Host string
	// Depth is the number of hops from the links the crawl started with.
	Depth int
	// URL, RetrievedAt and the validators are filled in when the link is
	// read back from the queue.
	URL                string
	RetrievedAt        time.Time
	ETag, LastModified string
}

// Lease is a host handed to one process, which alone may send it requests
// until the lease ends.
type Lease struct {
	Host string
	// Wait is how long, by the database's clock, before the host's next
	// request may start: the delay after the previous owner's last request
	// that it passed on when it released the host, or, when its lease
	// expired instead (Expired), the time until that expiry.
	Wait time.Duration
	// Expired is set when the previous owner's lease expired rather than
	// was released: it may have written a request as late as the expiry
	// (an owner ends its requests to a host by then, by its own clock,
	// which starts before the database's), so the new owner waits its own
	// delay for the host, robots.txt Crawl-delay included, past Wait.
	Expired bool
	// Robots is the host's cached robots.txt, if one is fresh.
	Robots *Robots
}

// Robots is what the processes of a crawl know of a host's robots.txt,
// kept for them to share: a decision, so that a host's new owner need not
// fetch the file again, or the attempts that found it unreachable, so that
// the retries go on where they stopped instead of starting over in every
// process the host passes through.
type Robots struct {
	// Origin is the scheme and host the file was fetched from.
	Origin string
	// Basis is how the decision was reached (rules, unavailable,
	// unreachable), and Body the file when the basis is
	// robots.BasisRules. Its values are stored as they are.
	Basis robots.Basis
	Body  []byte
	// TTL is how long the record may still be used.
	TTL time.Duration

	// Failures, with Basis robots.BasisUnreachable, is the number of
	// attempts in a row that found the file unreachable, and Error the
	// last one's error. A process whose retry policy allows more attempts
	// makes the next one after Retry; one whose policy allows no more
	// takes the file as unreachable for TTL.
	Failures int
	Error    string
	Retry    time.Duration
}

// Status is what a process learns of the shared crawl at each heartbeat.
type Status struct {
	// Workers is the number of live processes, itself included.
	Workers int
	// FewestHungry is the fewest hosts held by another live process that
	// wants more, or -1 if none does.
	FewestHungry int
	// PendingHosts is the number of hosts with queued links, held or not,
	// counted up to MaxCountedHosts.
	PendingHosts int
}

// MaxCountedHosts bounds the hosts a heartbeat counts, so that its cost
// does not grow with the crawl: beyond it, every process takes as many
// hosts as it may hold.
const MaxCountedHosts = 10_000

// WorkerStatus is what a process of a shared crawl reports of itself at
// each heartbeat, and what it learns of the others.
type WorkerStatus struct {
	// Hosts is the number of hosts the process holds.
	Hosts int
	// Hungry is set when it could take more hosts but found none free.
	Hungry bool
}

package linkgraph

import (
	"time"

	"github.com/google/uuid"
)

// The types below are the vocabulary of a shared crawl queue: the work of
// one crawl split between processes by host, kept in a graph's database
// (package postgres implements it). The crawl engine declares the
// interface it consumes; backends fill in these values.

// QueuedLink is a link waiting in a shared crawl queue under its host.
type QueuedLink struct {
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

// HostLease is a host handed to one process, which alone may send it
// requests until the lease ends.
type HostLease struct {
	Host string
	// Wait is how long, by the database's clock, before the host's next
	// request may start: its delay after the previous owner's last
	// request, or the time that owner's requests may still run when its
	// lease expired rather than was released.
	Wait time.Duration
	// Robots is the host's cached robots.txt, if one is fresh.
	Robots *RobotsCache
}

// RobotsCache is a robots.txt kept for the processes of a crawl to share.
type RobotsCache struct {
	// Origin is the scheme and host the file was fetched from.
	Origin string
	// Basis is the robots package's basis of the decision (rules,
	// unavailable), and Body the file when the basis is rules.
	Basis uint8
	Body  []byte
	// TTL is how long the decision may still be used.
	TTL time.Duration
}

// CrawlStatus is what a process learns of the shared crawl at each
// heartbeat.
type CrawlStatus struct {
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

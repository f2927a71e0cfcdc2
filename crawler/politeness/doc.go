// Package politeness keeps the crawler from overloading any one host
// without letting a slow host hold up the others.
//
// A Scheduler is a host-aware work queue. Producers Push URLs (or any
// value) under their host; fetch workers call Next, which returns the next
// item whose host has a free request slot (at most Options.MaxInFlight in
// flight per host) and whose minimum delay since the previous request start
// has elapsed (Options.MinDelay, or the host's robots.txt Crawl-delay set
// with SetDelay, whichever is larger). Workers therefore never sit idle on
// a host that is not ready while other hosts have work: with half the links
// on a host under a one-second delay, the other hosts are crawled at full
// speed. A host that is slow to answer ties up at most MaxInFlight
// workers, never all of them. Hosts take turns round-robin, so one host with
// a huge backlog does not starve the rest. With Options.Levels > 1,
// PushPriority lets shallow pages go first among the hosts that are ready
// (as package frontier does for a single queue), without ever making a
// ready host wait for a busy one.
//
// Acquire is the same limit for requests that are not queued items, such as
// a redirect hop or a robots.txt fetch made by a worker that already holds
// its page: it blocks until the host is ready.
//
// Memory is bounded: Options.MaxQueued items in total (Push blocks beyond
// it), and the state of a host is dropped once it has been idle for
// Options.IdleTTL.
package politeness

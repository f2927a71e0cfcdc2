// Package engine runs a whole crawl: from seed URLs (or from what a stored
// link graph still has to fetch) it crawls, recursively and politely, until
// nothing in scope is left, a limit is reached or the caller stops it, and
// returns a summary. It is the library behind `linksrus crawl`, for services
// that crawl on their own schedule.
//
//	e, err := engine.New(engine.Options{Graph: g, Index: idx})
//	...
//	sum, err := e.Run(ctx, "https://example.com/")
//
// Options embed crawler.FetchOptions, how pages are fetched (workers, user
// agent, private networks, timeouts, redirects, retries, URL
// normalisation, recording), and the engine hands them to its crawler as
// they are; its own requests (robots.txt, sitemaps) go out under them too.
// New fills in every default once and checks every setting once: a
// mistake is an error wrapping ErrOptions and a *crawler.OptionError that
// names the setting ("Options.PerHost", "FetchOptions.Workers"), which
// Options.Check reports before any store is opened.
//
// The engine owns what makes a crawler out of package crawler's pipeline,
// and gives it to the crawler through the one contract the crawler
// declares, crawler.Frontier (feed.go: each of its seven methods hands
// over to one part of the run):
//
//   - the frontier: links queued per host, shallowest first (priority
//     levels by depth), each queued once per run; in memory up to
//     Options.MaxQueued links, the rest spilled to a temporary file and
//     read back as the queue drains, so memory is bounded by configuration
//     rather than by the size of the web (what grows with the links a run
//     claims is its seen-set, a hash of each, 11 to 21 bytes a link up to
//     Options.MaxSeen, and the referrers it keeps if Options.Referrers
//     asks for them);
//   - discovery: the links a crawled page follows (Frontier.Found, once the
//     graph has stored them; rel="nofollow" links are not among them) join
//     the frontier if they are in scope;
//   - scope: the seeds' hosts by default, or registrable domains,
//     include/exclude patterns, a filter function, a maximum depth;
//   - robots.txt, fetched once per host before any of its pages, retried
//     under the retry policy while it is unreachable (the host's pages wait,
//     they are not dropped) and reported with its error when retries run
//     out;
//   - sitemaps, read once per host per run from a goroutine of their own
//     once the host's first page is handed out: the Sitemap lines of its
//     robots.txt, /sitemap.xml and the sitemaps their indexes list
//     (package sitemap parses them); the URLs they list in scope join the
//     frontier one hop from the start with their lastmod, the run lasting
//     until every host's sitemaps are read. A sitemap that cannot be read
//     is an outcome with crawler.ReasonSitemap, a skip, not a failure.
//     Options.IgnoreSitemaps turns them off;
//   - politeness enforced where each request starts: at most
//     Options.PerHost requests in flight per host and at least the host's
//     delay (Options.Delay, raised by a robots.txt Crawl-delay) between two
//     request starts, counted from the moment the earlier request was
//     written to its connection (a request held up after the scheduler let
//     it start, by a slow dial or a loaded machine, keeps the host's turn
//     until then), for every request that reaches a host: page GETs,
//     HEADs, every redirect hop, every retry, robots.txt and sitemaps. A host
//     waiting for its delay never holds a fetch worker: a page whose next
//     request (a hop, a retry) cannot start goes back to the frontier and a
//     worker takes another host's page;
//   - resume: the seeds and every link the graph holds that is due (never
//     retrieved, or retrieved before Options.RecrawlAfter) are queued, so a
//     run started again after an interruption carries on where it stopped;
//   - rendering (Options.Render): the run's headless browser (package
//     render) and the fetcher of the browser's own requests (render.go),
//     which keeps them under the rules above: the host's politeness slot
//     and lease, robots.txt, the private-network guard, reads only.
//
// Its zero Options are polite: robots.txt obeyed, two requests in flight
// per host, a User-Agent naming the library, no private addresses, the
// seeds' hosts only.
//
// # Crawling from several processes
//
// With Options.Shared, processes on different machines crawl one graph
// together through a queue kept in the database they share (the contract
// is package crawler/workqueue's Queue; a PostgreSQL graph, package
// linkgraph/postgres, keeps one and is taken as the queue when
// Shared.Queue is unset). Links found in scope go
// to the shared queue instead of the process's frontier; a process leases
// hosts with queued work and feeds their links to its frontier, so a host
// is crawled by one process at a time and the per-host limits and delays
// above hold across all processes together, handovers included (the
// next request waits for the previous owner's delay, by the database's
// clock). A process renews its leases every LeaseTTL/4 and starts no
// request on a host once 3/4 of LeaseTTL have passed since the renewal was
// sent; one that dies loses its hosts when its leases expire, and the
// others take them over. A process joining a running crawl gets a share of
// the hosts, and a process finishes when nothing has been queued anywhere
// for Shared.Idle. The engine is the same; only where links wait differs.
//
// The fence and the window it leaves. A process holds a host's lease for a
// term: from the sending of its claim or last renewal, by its own
// monotonic clock, for LeaseTTL, which ends no later than the expiry the
// database keeps (the database stamps the lease after the process sent
// the statement). Within the term, requests to the host start until 3/4
// of it; at its end every request still running on the host (being sent,
// or its body being read) is cut, and its page parked: a page cut so is
// reported withdrawn (crawler.ReasonWithdrawn), not failed, and stays due
// for the host's next owner. A renewal that comes back in time begins the
// next term. A host released by its owner goes to the next with the
// owner's next allowed start; a host whose lease expired goes to the next
// owner, which starts no sooner than the expiry plus its own delay for
// the host: the old owner's requests ended by the expiry. The requests of
// the engine (robots.txt, sitemaps) are fenced as pages are; a robots.txt
// fetch cut so decides nothing, and is fetched again by whoever holds the
// host next. The attempts that found a robots.txt unreachable are shared
// with the host, so Options.Retry bounds the attempts at the file across
// the processes it passes through, with their backoff, and the decision
// to give it up (its pages reported robots-unreachable) holds for every
// process for the minute it lasts.
//
// What remains is a stall. The lease is checked when a request is let
// start, and the term's end is seen by the transport (net/http) at its
// own context checks: a process stopped (SIGSTOP, a paused virtual
// machine) between such a check and the write sends that request when it
// resumes, however long the stall, at most one per slot it held, so at
// most PerHost per host it held, possibly beside the new owner's. A
// process that stalls between requests sends nothing more, since its term
// has passed by then.
//
// Several runs may go on at once, on one Engine or several; they share
// nothing but the Options' stores and callbacks. A run leaves no goroutine
// behind when it returns.
package engine

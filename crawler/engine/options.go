package engine

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/politeness"
	"github.com/linksrus/linksrus/crawler/render"
	"github.com/linksrus/linksrus/crawler/scope"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/pipeline"
)

// Defaults of the Options fields left zero.
const (
	// DefaultPerHost is the customary polite limit of requests in flight
	// per host (browsers of old, RFC 2616 8.1.4).
	DefaultPerHost = politeness.DefaultMaxInFlight
	// DefaultMaxQueued bounds the links the frontier keeps in memory: a
	// link, its URL and the queue's slack are about 250 bytes, 25 MB at
	// the bound; the rest waits in a file.
	DefaultMaxQueued = 100_000
	// DefaultMaxSeen bounds the set of links claimed in a run: a 64-bit
	// hash each in a table up to three quarters full, 11 to 21 bytes a
	// link (16 MiB at a million links), 64 MiB at the bound.
	DefaultMaxSeen = 4_000_000
)

// ErrOptions is wrapped by New for Options it cannot use.
var ErrOptions = errors.New("engine: invalid options")

// Graph is the link graph a crawl reads its work from and writes its
// results to; every linkgraph backend implements it.
type Graph interface {
	crawler.Graph
	// RefreshEdges marks the edges of pages found unchanged as seen
	// again (crawler.EdgeRefresher); with it a recrawl asks for pages
	// with conditional requests.
	RefreshEdges(fromIDs []uuid.UUID, updatedAt time.Time) error
	// FindLink returns the link with the given ID.
	FindLink(id uuid.UUID) (*linkgraph.Link, error)
	// Links iterates over the links of [fromID, toID) retrieved before
	// retrievedBefore (never retrieved links included).
	Links(fromID, toID uuid.UUID, retrievedBefore time.Time) (linkgraph.LinkIterator, error)
}

// Options configure an Engine. Only Graph is required; every other zero
// field takes a polite default.
type Options struct {
	// Graph stores the links, edges and crawl times, and is where a run
	// finds what is left to do. Required.
	Graph Graph
	// Index receives each crawled page's text. Default: nil, links only.
	Index crawler.Indexer

	// FetchOptions are how pages are requested and accepted (workers,
	// user agent, private networks, timeouts, redirects, retries, URL
	// normalisation, recording; see crawler.FetchOptions), handed to the
	// crawler as they are. Their fields are promoted (opts.Workers). The
	// engine's own requests go out under them too: robots.txt and sitemaps
	// are sent through URLGetter with UserAgent and DecorateRequest,
	// within FetchTimeout; robots.txt is retried under Retry like a page
	// (the zero value: crawler.DefaultMaxRetries retries with backoff,
	// Retry-After honoured up to crawler.DefaultMaxRetryAfter; MaxRetries
	// -1, none), and the Recorder is given their responses too (each kept
	// up to MaxBodyBytes). The default URLGetter is made once by New and
	// shared by the Engine's runs; its idle connections are closed when
	// each run ends. A Recorder's failure stops the crawl (for robots.txt
	// and sitemaps: the fetch fails); the caller closes it after the run.
	crawler.FetchOptions

	// PerHost is the most requests in flight to one host (host and port).
	// Default: DefaultPerHost.
	PerHost int
	// Delay is the least time between two request starts to one host; a
	// robots.txt Crawl-delay (capped at MaxCrawlDelay) raises it for its
	// host. Default: 0.
	Delay time.Duration
	// MaxCrawlDelay caps robots.txt Crawl-delay values. Default: 10s.
	MaxCrawlDelay time.Duration
	// IgnoreRobots skips robots.txt entirely. Default: obeyed.
	IgnoreRobots bool
	// IgnoreSitemaps turns sitemaps off. By default the sitemaps of every
	// host the crawl queues links for are read once per run (the Sitemap
	// lines of its robots.txt, /sitemap.xml, and the sitemaps their
	// indexes list, through the host's politeness and robots.txt like
	// any request), and the URLs they list that are in scope are queued
	// one hop from the start, with their <lastmod>. IgnoreRobots does not
	// turn them off (only /sitemap.xml is read then, robots.txt not being
	// fetched). A sitemap that cannot be read is reported (an outcome with
	// crawler.ReasonSitemap); the crawl goes on. In a shared crawl each
	// process reads the sitemaps of the hosts it leases, once per run of
	// its own.
	IgnoreSitemaps bool

	// AnyHost lets the crawl leave the seeds' hosts. By default, and
	// unless Domains is set, only the seeds' hosts are crawled.
	AnyHost bool
	// Domains accepts these registrable domains and their subdomains
	// instead of the seeds' hosts.
	Domains []string
	// Include and Exclude are RE2 patterns matched against the normalised
	// URL: with Include, a URL must match one; Exclude wins.
	Include, Exclude []string
	// Filter, if set, is asked last about every URL in scope at its depth
	// and may refuse it. It must be safe for concurrent use.
	Filter func(u *url.URL, depth int) bool
	// MaxDepth is the most hops from the links a run starts with (the
	// seeds, or on a resumed run the links left over). 0: no limit.
	MaxDepth int
	// MaxPages stops handing out pages after this many in a run; the
	// pages in flight still finish. 0: no limit.
	MaxPages int
	// RecrawlAfter makes pages retrieved longer ago than this due again.
	// 0: a retrieved page is never fetched again.
	RecrawlAfter time.Duration

	// MaxQueued bounds the links the frontier holds in memory; more are
	// spilled to a file in SpillDir. Default: DefaultMaxQueued.
	MaxQueued int
	// MaxSeen bounds the set of links queued in a run, which is what makes
	// a page that fails be tried once per run. Beyond it, a link found
	// again may be queued again: it is skipped when handed out if its
	// other copy is in flight or the graph has it crawled, so only a page
	// that failed may be tried twice. The set is the one part of a run's
	// memory that grows with every link it claims (but for Referrers), 11
	// to 21 bytes each, up to the bound. Default: DefaultMaxSeen.
	MaxSeen int
	// SpillDir is where the frontier's overflow file goes. Default:
	// os.TempDir().
	SpillDir string
	// Partition, if set, restricts the run to a share of the graph.
	Partition *Partition
	// Shared, if set, shares the crawl's work with the other processes
	// using the same queue (see Shared): a host is crawled by one process
	// at a time, and processes may join, leave or die. It excludes
	// Partition.
	Shared *Shared

	// Render has pages rendered in headless Chromium before their links
	// and text are read (see crawler.Config.Render):
	// crawler.RenderAuto those that need it, RenderAlways every HTML page.
	// The browser renders the body the crawl fetched, and every request it
	// makes goes through the run's rules as the run's own do: the getter
	// and its private-network guard, the host's politeness slot (in a
	// shared crawl, only on hosts this process leases), robots.txt (unless
	// IgnoreRobots), GET and HEAD only, each response up to MaxBodyBytes
	// (images, fonts and media are not fetched at all); it cannot reach
	// the network by itself. Start fails without a browser
	// to run (render.New; chromium.ErrNotFound without one); the browser
	// starts with the first page rendered, and ends with the run.
	// Default: crawler.RenderNever.
	Render crawler.RenderMode
	// Rendering configures the browser: its path, tabs and budgets (see
	// render.Options).
	Rendering render.Options

	// Processors receive a copy of every crawled page, beside the stores.
	Processors []pipeline.Processor
	// OnOutcome, if set, receives the outcome of every URL the run
	// handles, once, from the pipeline's goroutines (concurrently).
	OnOutcome func(crawler.Outcome)
	// Referrers is how many linking pages a run remembers per link, for
	// Run.Referrers (broken-link reports). They are kept for every link
	// the run finds, to its end, whatever MaxSeen: about 60 bytes a link
	// and 16 to 32 a referrer. Default: 0, none.
	Referrers int
	// StoreBatchSize and StoreBatchDelay are passed to the crawler
	// (crawler.Config).
	StoreBatchSize  int
	StoreBatchDelay time.Duration
}

// Check reports the first setting of o that cannot be used, apart from a
// missing Graph, so that a command can check its flags before it opens any
// store. The error wraps ErrOptions and a *crawler.OptionError naming the
// setting ("Options.PerHost", "FetchOptions.Workers").
func (o Options) Check() error {
	if err := o.check(); err != nil {
		return fmt.Errorf("%w: %w", ErrOptions, err)
	}
	return nil
}

// withDefaults checks o and fills in its defaults.
func (o Options) withDefaults() (Options, error) {
	if err := o.Check(); err != nil {
		return o, err
	}
	if o.Graph == nil {
		return o, fmt.Errorf("%w: %w", ErrOptions, &crawler.OptionError{Field: "Options.Graph", Problem: "is required"})
	}
	o.FetchOptions = o.FetchOptions.WithDefaults()
	if o.PerHost == 0 {
		o.PerHost = DefaultPerHost
	}
	if o.MaxCrawlDelay == 0 {
		o.MaxCrawlDelay = 10 * time.Second
	}
	if o.MaxQueued == 0 {
		o.MaxQueued = DefaultMaxQueued
	}
	if o.MaxSeen == 0 {
		o.MaxSeen = DefaultMaxSeen
	}
	if o.SpillDir == "" {
		o.SpillDir = os.TempDir()
	}
	if o.Shared != nil {
		sh, err := o.Shared.withDefaults(o.Graph, o.Workers)
		if err != nil {
			return o, err
		}
		o.Shared = sh
	}
	return o, nil
}

// minLeaseTTL is the shortest Shared.LeaseTTL: a lease is renewed every
// quarter of it, and a shorter one would be renewed more often than a
// database round trip can be counted on.
const minLeaseTTL = 100 * time.Millisecond

// check is Check without the ErrOptions wrapping: a *crawler.OptionError.
func (o Options) check() error {
	// The settings the crawler takes as they are, by the crawler's check.
	passed := crawler.Config{FetchOptions: o.FetchOptions, StoreBatchSize: o.StoreBatchSize, Processors: o.Processors}
	if o.Render != crawler.RenderNever {
		// The run brings the Renderer; the mode is the crawler's to check.
		passed.Render, passed.Renderer = o.Render, pageRenderer{}
	}
	if err := passed.Check(); err != nil {
		return err
	}
	for _, c := range []struct {
		field string
		v     int
	}{
		{"PerHost", o.PerHost}, {"MaxDepth", o.MaxDepth}, {"MaxPages", o.MaxPages},
		{"MaxQueued", o.MaxQueued}, {"MaxSeen", o.MaxSeen}, {"Referrers", o.Referrers},
	} {
		if c.v < 0 {
			return negative("Options."+c.field, c.v)
		}
	}
	for _, c := range []struct {
		field string
		v     time.Duration
	}{
		{"Delay", o.Delay}, {"MaxCrawlDelay", o.MaxCrawlDelay}, {"RecrawlAfter", o.RecrawlAfter},
	} {
		if c.v < 0 {
			return negative("Options."+c.field, c.v)
		}
	}
	if p := o.Partition; p != nil && p.Idle < 0 {
		return negative("Options.Partition.Idle", p.Idle)
	}
	if s := o.Shared; s != nil {
		switch {
		case o.Partition != nil:
			return &crawler.OptionError{Field: "Options.Shared", Problem: "and Options.Partition exclude each other"}
		case s.LeaseTTL < 0:
			return negative("Options.Shared.LeaseTTL", s.LeaseTTL)
		case s.LeaseTTL > 0 && s.LeaseTTL < minLeaseTTL:
			return &crawler.OptionError{Field: "Options.Shared.LeaseTTL", Value: s.LeaseTTL, Problem: "is below " + minLeaseTTL.String()}
		case s.Idle < 0:
			return negative("Options.Shared.Idle", s.Idle)
		case s.MaxHosts < 0:
			return negative("Options.Shared.MaxHosts", s.MaxHosts)
		}
	}
	// The scope's patterns and domains, without seeds.
	if _, err := scope.New(scope.Config{Domains: o.Domains, Include: o.Include, Exclude: o.Exclude}, nil); err != nil {
		var ce *scope.ConfigError
		if errors.As(err, &ce) {
			return &crawler.OptionError{Field: "Options." + ce.Field, Value: ce.Value, Problem: ce.Problem}
		}
		return err
	}
	return nil
}

// negative is the error for a setting below zero.
func negative(field string, v any) error {
	return &crawler.OptionError{Field: field, Value: v, Problem: "is negative"}
}

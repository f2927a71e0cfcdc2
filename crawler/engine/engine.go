package engine

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/render"
	"github.com/linksrus/linksrus/crawler/scope"
	"github.com/linksrus/linksrus/crawler/urlnorm"
	"github.com/linksrus/linksrus/linkgraph"
)

// Engine crawls with one set of Options. It is safe for concurrent use:
// each Run has its own frontier, robots.txt cache and counters.
type Engine struct {
	opts Options // with defaults filled in
	// idle is the default getter, whose kept-alive connections are closed
	// when a run ends; nil for a caller's getter.
	idle interface{ CloseIdleConnections() }
}

// New returns an Engine for opts, with defaults filled in. It fails, with
// an error wrapping ErrOptions and a *crawler.OptionError, for options it
// cannot use.
func New(opts Options) (*Engine, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	e := &Engine{opts: o}
	if opts.URLGetter == nil {
		e.idle, _ = o.URLGetter.(interface{ CloseIdleConnections() })
	}
	return e, nil
}

// Run crawls from seeds (absolute http or https URLs; none to resume what
// the graph has left) until nothing in scope is due, MaxPages pages have
// been handed out, or ctx ends, and returns what the run did. Pages that
// fail are reported through Options.OnOutcome and counted in the summary;
// an error is returned for bad seeds, or when a store or a processor fails
// (together with the summary so far). A cancelled ctx abandons the pages
// in flight; see Start and Run.Stop for a graceful stop.
func (e *Engine) Run(ctx context.Context, seeds ...string) (*Summary, error) {
	r, err := e.Start(ctx, seeds...)
	if err != nil {
		return nil, err
	}
	return r.Wait()
}

// Summary is what a run did.
type Summary struct {
	Progress
	// Handed is the number of pages the run handed out to be fetched: 0
	// when nothing in scope was due.
	Handed int
	// Stopped is set if Stop ended the run early, LimitReached if
	// MaxPages did, Canceled if its context did.
	Stopped, LimitReached, Canceled bool
	// Seeds holds the outcome of every seed the run fetched or tried to.
	Seeds []crawler.Outcome
	// SharedQueries is, in a shared crawl, the statements the run sent to
	// its queue (workqueue.Queue's Queries).
	SharedQueries int64
}

// FailedSeeds returns the outcomes of the seeds the run did not crawl, for
// whatever reason (see SeedFailed); Errors counts them.
func (s *Summary) FailedSeeds() []crawler.Outcome {
	var failed []crawler.Outcome
	for _, o := range s.Seeds {
		if SeedFailed(o.Reason) {
			failed = append(failed, o)
		}
	}
	return failed
}

// Run is a crawl started by Engine.Start.
type Run struct {
	opts      Options
	cutoff    time.Time
	scope     *scope.Scope
	stats     *runStats
	frontier  *frontier
	discovery *discovery
	runCtx    context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup // robots.txt fetches, the shared work's manager
	done      chan struct{}

	// browser renders the run's pages (Options.Render), or is nil;
	// stopRenders abandons the renders under way (Stop).
	browser     *render.Renderer
	stopRenders context.CancelFunc

	mu       sync.Mutex // guards seedIDs, seedOuts and stopped
	seedIDs  map[uuid.UUID]bool
	seedOuts []crawler.Outcome
	stopped  bool

	// Written once by the run's goroutine before done is closed.
	summary  *Summary
	crawlErr error
}

// Start starts a crawl from seeds (see Run) and returns at once; call Wait
// for its end. It fails for invalid seeds or options, or if the graph
// cannot be read or written.
func (e *Engine) Start(ctx context.Context, seeds ...string) (*Run, error) {
	o := e.opts
	seedURLs, err := NormalizeSeeds(seeds, o.Normalization())
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	sc, err := scope.New(scope.Config{
		MaxDepth:     o.MaxDepth,
		SameHostOnly: !o.AnyHost && len(o.Domains) == 0,
		Domains:      o.Domains,
		Include:      o.Include,
		Exclude:      o.Exclude,
		Filter:       o.Filter,
	}, seedURLs)
	if err != nil {
		return nil, fmt.Errorf("engine: scope: %w", err)
	}
	cutoff := time.Unix(0, 0) // only links never retrieved
	if o.RecrawlAfter > 0 {
		cutoff = time.Now().Add(-o.RecrawlAfter)
	}
	runCtx, cancel := context.WithCancel(ctx)
	r := &Run{
		opts:    o,
		cutoff:  cutoff,
		scope:   sc,
		stats:   newRunStats(),
		runCtx:  runCtx,
		cancel:  cancel,
		done:    make(chan struct{}),
		seedIDs: make(map[uuid.UUID]bool),
	}
	f, err := newFrontier(runCtx, &o, cutoff)
	if err != nil {
		cancel()
		return nil, err
	}
	r.frontier = f
	hf := newHostFetcher(runCtx, &r.wg, f.sched, &o, r.mayStart, r.fence)
	if !o.IgnoreRobots {
		f.robots = newRobotsTable(hf, &o)
	}
	if !o.IgnoreSitemaps {
		f.sitemaps = newSitemapReader(hf, r, f.robots)
	}
	f.work = r.newWorkSource()
	r.discovery = newDiscovery(r)
	fail := func(err error) (*Run, error) {
		cancel()
		if r.browser != nil {
			_ = r.browser.Close()
		}
		r.wg.Wait()
		_ = f.close()
		_ = f.work.close()
		return nil, err
	}
	if err := r.seed(seedURLs); err != nil {
		return fail(err)
	}
	if err := f.work.leftovers(runCtx); err != nil {
		return fail(err)
	}
	cfg := r.crawlerConfig()
	if o.Render != crawler.RenderNever {
		browser, err := render.New(o.Rendering)
		if err != nil {
			return fail(fmt.Errorf("engine: %w", err))
		}
		stopped, stopRenders := context.WithCancel(runCtx)
		r.browser, r.stopRenders = browser, stopRenders
		cfg.Render, cfg.Renderer = o.Render, pageRenderer{browser: browser, stopped: stopped, requests: &browserRequests{
			hosts: hf, robots: f.robots, detector: o.PrivateNetworkDetector,
			userAgent: o.UserAgent, decorate: o.DecorateRequest, maxBytes: o.MaxBodyBytes,
		}}
	}
	c, err := crawler.NewCrawler(cfg)
	if err != nil {
		return fail(err)
	}
	r.wg.Go(func() { f.work.run(runCtx) })
	go func() {
		defer close(r.done)
		_, err := c.CrawlFrom(runCtx, feed{r})
		cancel()
		if r.browser != nil {
			// No render is under way: the pipeline is over.
			_ = r.browser.Close()
		}
		r.wg.Wait()
		if cerr := f.close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("engine: frontier: %w", cerr))
		}
		if serr := f.work.close(); serr != nil {
			err = errors.Join(err, fmt.Errorf("engine: shared queue: %w", serr))
		}
		if e.idle != nil {
			// Keep-alive connections would outlive the run, goroutines
			// and all; the next run may be hours away.
			e.idle.CloseIdleConnections()
		}
		r.finish(ctx, err)
	}()
	return r, nil
}

// ctx is the run's context, which ends with the run.
func (r *Run) ctx() context.Context { return r.runCtx }

// mayStart and fence are the work source's fence around the requests the
// engine makes itself (robots.txt, sitemaps; frontier.begin asks may for
// the crawler's): a request starts only while its host may take one, and
// runs under the host's fence (sentReporter, for every request of the run).
func (r *Run) mayStart(host string) bool {
	_, start := r.frontier.work.may(host)
	return start
}

func (r *Run) fence(host string) context.Context { return r.frontier.work.fence(host) }

// crawlerConfig is the crawler's configuration for the run: the fetch
// settings as they are (the getter wrapped to report each request's write:
// sentReporter), and the run's stores. Everything else of the run
// reaches the crawler through its Frontier contract (feed).
func (r *Run) crawlerConfig() crawler.Config {
	o := r.opts
	o.URLGetter = sentReporter{next: o.URLGetter, sched: r.frontier.sched, fence: r.fence}
	return crawler.Config{
		FetchOptions:    o.FetchOptions,
		Graph:           o.Graph,
		Index:           o.Index,
		StoreBatchSize:  o.StoreBatchSize,
		StoreBatchDelay: o.StoreBatchDelay,
		Processors:      o.Processors,
	}
}

// outcome receives every page's outcome.
func (r *Run) outcome(out crawler.Outcome) {
	r.mu.Lock()
	seed := r.seedIDs[out.LinkID]
	if seed {
		r.seedOuts = append(r.seedOuts, out)
	}
	r.mu.Unlock()
	r.stats.record(out, seed)
	r.frontier.work.finished(out)
	r.frontier.done(out.LinkID)
	// The caller's, last: a panic there (recovered by the crawler, and
	// the crawl's error) must not leave the page in flight.
	if r.opts.OnOutcome != nil {
		r.opts.OnOutcome(out)
	}
}

// report reports the outcome of a URL that is not a page of the frontier
// (a sitemap): counted and passed on, but no page is done with it.
func (r *Run) report(out crawler.Outcome) {
	r.stats.record(out, false)
	if r.opts.OnOutcome != nil {
		r.opts.OnOutcome(out)
	}
}

// seed stores the seeds and queues those that are due.
func (r *Run) seed(seeds []*url.URL) error {
	if len(seeds) == 0 {
		return nil
	}
	links := make([]*linkgraph.Link, len(seeds))
	for i, s := range seeds {
		links[i] = &linkgraph.Link{URL: s.String()}
	}
	if err := r.opts.Graph.UpsertLinks(links); err != nil {
		return fmt.Errorf("engine: store seeds: %w", err)
	}
	for i, l := range links {
		if !l.RetrievedAt.Before(r.cutoff) || !r.frontier.work.owns(l.ID) {
			continue
		}
		if reason := r.scope.Check(seeds[i], 0); reason != scope.InScope {
			r.stats.note("scope: " + reason.String())
			continue
		}
		r.mu.Lock()
		r.seedIDs[l.ID] = true
		r.mu.Unlock()
		if _, err := r.frontier.add(*l, 0); err != nil {
			return fmt.Errorf("engine: queue seeds: %w", err)
		}
	}
	return nil
}

// queuePending queues the links with IDs in [from, to) (a zero to: to
// the end) that are due and in scope and were not queued in this run yet:
// what an interrupted run left, or what is due again under RecrawlAfter.
// It returns how many it queued. Depth is counted from them. It is the
// work sources' scanFunc.
func (r *Run) queuePending(from, to uuid.UUID) (int, error) {
	it, err := r.opts.Graph.Links(from, to, r.cutoff)
	if err != nil {
		return 0, fmt.Errorf("engine: list links to crawl: %w", err)
	}
	defer it.Close()
	n := 0
	for it.Next() {
		l := it.Link()
		if r.frontier.isSeen(l.URL) {
			continue
		}
		u, err := url.Parse(l.URL)
		if err != nil || r.scope.Check(u, 0) != scope.InScope {
			continue
		}
		ok, err := r.frontier.add(*l, 0)
		if err != nil {
			return n, fmt.Errorf("engine: queue links to crawl: %w", err)
		}
		if ok {
			n++
		}
	}
	if err := it.Error(); err != nil {
		return n, fmt.Errorf("engine: list links to crawl: %w", err)
	}
	return n, nil
}

// finish computes the summary once the crawl is over.
func (r *Run) finish(ctx context.Context, err error) {
	f := r.frontier
	sum := &Summary{Progress: r.Progress()}
	f.mu.Lock()
	sum.Handed = f.handed
	sum.LimitReached = f.maxPages > 0 && f.handed >= f.maxPages
	f.mu.Unlock()
	r.mu.Lock()
	sum.Stopped = r.stopped
	sum.Seeds = append([]crawler.Outcome(nil), r.seedOuts...)
	r.mu.Unlock()
	sum.Canceled = ctx.Err() != nil
	sum.SharedQueries = f.work.queries()
	r.summary, r.crawlErr = sum, err
}

// Stop ends the run gracefully: no page is handed out any more, the pages
// in flight finish and are stored (those being rendered as served: their
// renders are abandoned), and what is still queued stays in the graph for
// the next run. It returns at once; Wait waits for the end.
func (r *Run) Stop() {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	r.frontier.stop()
	if r.stopRenders != nil {
		r.stopRenders()
	}
}

// Wait waits for the run to end and returns its summary, and the error
// that ended it early, if any.
func (r *Run) Wait() (*Summary, error) {
	<-r.done
	if r.crawlErr != nil {
		return r.summary, fmt.Errorf("engine: %w", r.crawlErr)
	}
	return r.summary, nil
}

// Done is closed when the run has ended.
func (r *Run) Done() <-chan struct{} { return r.done }

// Progress returns a snapshot of the run's counters; it may be called at
// any time, concurrently.
func (r *Run) Progress() Progress {
	p := r.stats.snapshot()
	p.Queued, p.InFlight = r.frontier.stats()
	return p
}

// Referrers returns up to Options.Referrers pages seen linking to the link
// id in this run.
func (r *Run) Referrers(id uuid.UUID) []uuid.UUID { return r.discovery.referrersOf(id) }

// schemeless reports whether s looks like a URL written without its
// scheme: "example.com/docs", "127.0.0.1:8080/", "localhost:8080".
func schemeless(s string) bool {
	if strings.Contains(s, "://") {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return true
	}
	// "localhost:8080/" parses as the scheme "localhost".
	return u.Opaque != "" && u.Opaque[0] >= '0' && u.Opaque[0] <= '9'
}

// NormalizeSeeds parses seed URLs and normalises them as the crawler
// normalises links (package urlnorm: case, IDNA host names, default ports,
// dot segments, percent-encoding, no fragment; opts are the optional
// normalisations, crawler.FetchOptions.Normalization), so that a seed and
// the links to it are one link. It fails for a URL that is not absolute
// http or https, or longer than the graph stores (linkgraph.MaxURLLength),
// with an error that names the seed and says what is wrong, in words fit
// for the person who gave it (Start prefixes it with "engine: ").
func NormalizeSeeds(seeds []string, opts urlnorm.Options) ([]*url.URL, error) {
	out := make([]*url.URL, 0, len(seeds))
	for _, s := range seeds {
		if len(s) > linkgraph.MaxURLLength {
			// Refused before anything is stored: the graph would refuse
			// it only once the run had started.
			return nil, fmt.Errorf("seed %.40q... of %d bytes is longer than the %d the graph stores", s, len(s), linkgraph.MaxURLLength)
		}
		n, err := urlnorm.Normalize(s, opts)
		if err != nil {
			if schemeless(s) {
				return nil, fmt.Errorf("seed %q has no scheme: did you mean %q?", s, "http://"+s)
			}
			return nil, fmt.Errorf("seed %q: %w", s, err)
		}
		u, err := url.Parse(n)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("seed %q is not an absolute http or https URL", s)
		}
		out = append(out, u)
	}
	return out, nil
}

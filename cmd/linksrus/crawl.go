package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/crawler/scope"
	"github.com/linksrus/linksrus/crawler/urlnorm"
	"github.com/linksrus/linksrus/linkgraph"
)

// crawlOptions are the crawl command's flags.
type crawlOptions struct {
	stores        storeFlags
	workers       int
	maxPages      int
	maxDepth      int
	sameHost      bool
	domains       string
	include       string
	exclude       string
	delay         time.Duration
	perHost       int
	userAgent     string
	ignoreRobots  bool
	maxBody       int64
	timeout       time.Duration
	allowNets     stringList
	report        string
	partition     string
	every         time.Duration
	recrawlAfter  time.Duration
	listen        string
	idleExit      time.Duration
	cpuProfile    string
	retries       int
	maxRedirects  int
	headFirst     bool
	sortQuery     bool
	stripTracking bool
}

// stringList is a repeatable flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func (o *crawlOptions) register(fs *flag.FlagSet, env *environment) {
	o.stores.register(fs, env)
	fs.IntVar(&o.workers, "workers", crawler.DefaultFetchWorkers, "fetch `N` pages at once")
	fs.IntVar(&o.maxPages, "max-pages", 0, "stop after fetching `N` pages (0: no limit)")
	fs.IntVar(&o.maxDepth, "max-depth", 0, "follow links at most `N` hops from the seeds (0: no limit)")
	fs.BoolVar(&o.sameHost, "same-host", true, "fetch only pages on the seeds' hosts")
	fs.StringVar(&o.domains, "domains", "", "fetch only pages whose registrable domain is in this comma-separated `LIST` (implies --same-host=false)")
	fs.StringVar(&o.include, "include", "", "fetch only URLs matching this regular expression (`RE`)")
	fs.StringVar(&o.exclude, "exclude", "", "never fetch URLs matching this regular expression (`RE`)")
	fs.DurationVar(&o.delay, "delay", 0, "wait at least `D` between requests to one host")
	fs.IntVar(&o.perHost, "per-host", 0, "at most `N` requests in flight per host (0: the default)")
	fs.StringVar(&o.userAgent, "user-agent", crawler.DefaultUserAgent, "User-Agent header `S`, also the name matched in robots.txt")
	fs.BoolVar(&o.ignoreRobots, "ignore-robots", false, "do not fetch or obey robots.txt")
	fs.Int64Var(&o.maxBody, "max-body", crawler.DefaultMaxBodyBytes, "skip pages larger than `BYTES`")
	fs.DurationVar(&o.timeout, "timeout", crawler.DefaultFetchTimeout, "give up on a page after `D`")
	fs.Var(&o.allowNets, "allow-net", "let the crawler reach this private network `CIDR`, e.g. 127.0.0.0/8 (repeatable)")
	fs.StringVar(&o.report, "report", "", "write the summary and every URL's outcome as JSON to `FILE`")
	fs.StringVar(&o.partition, "partition", "", "crawl only share `I/N` of the links, with N processes sharing one database")
	fs.DurationVar(&o.every, "every", 0, "run as a service: crawl again every `D`, re-fetching pages older than --recrawl-after")
	fs.DurationVar(&o.recrawlAfter, "recrawl-after", 0, "fetch again pages retrieved more than `D` ago (0: never)")
	fs.StringVar(&o.listen, "listen", "", "serve /healthz and /metrics on `ADDR` (e.g. 127.0.0.1:9090)")
	fs.IntVar(&o.retries, "retries", crawler.DefaultMaxRetries, "retry a transient failure (timeout, reset, 429, 5xx) up to `N` times, honouring Retry-After (0: never)")
	fs.IntVar(&o.maxRedirects, "max-redirects", crawler.DefaultMaxRedirects, "follow at most `N` redirects per page, each checked like a link")
	fs.BoolVar(&o.headFirst, "head-first", false, "send HEAD before GET to skip non-HTML without downloading it")
	fs.BoolVar(&o.sortQuery, "sort-query", false, "sort query parameters when normalising URLs (fewer duplicates, but some sites care about order)")
	fs.BoolVar(&o.stripTracking, "strip-tracking", false, "drop utm_*, gclid and fbclid query parameters when normalising URLs")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the crawl to `FILE`")
	fs.DurationVar(&o.idleExit, "partition-idle", 5*time.Second, "with --partition: finish after `D` without new links in this share")
}

func runCrawl(ctx context.Context, env *environment, args []string) error {
	fs := newFlagSet(env, "crawl", "crawl [flags] URL...")
	var o crawlOptions
	o.register(fs, env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	seeds, err := parseSeeds(fs.Args())
	if err != nil {
		return usageError(env, fs, "%v", err)
	}
	if len(seeds) == 0 {
		return usageError(env, fs, "at least one seed URL is required")
	}
	cfg, err := o.validate(seeds)
	if err != nil {
		return usageError(env, fs, "%v", err)
	}

	st, err := openStores(ctx, &o.stores, true, true)
	if err != nil {
		return err
	}
	defer st.Close()

	if o.cpuProfile != "" {
		stop, err := startCPUProfile(o.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	svc := newService(env, cfg)
	if o.listen != "" {
		stopServer, err := svc.serve(o.listen)
		if err != nil {
			return err
		}
		defer stopServer()
	}
	if o.every <= 0 {
		return crawlOnce(ctx, env, cfg, st, svc)
	}
	return svc.loop(ctx, o.every, func(ctx context.Context) error {
		return crawlOnce(ctx, env, cfg, st, svc)
	})
}

// crawlConfig is the validated, parsed form of crawlOptions.
type crawlConfig struct {
	opts      crawlOptions
	seeds     []*url.URL
	scope     *scope.Scope
	partition partition
	allow     []netip.Prefix
	detector  *privnet.Detector
}

func (o *crawlOptions) validate(seeds []*url.URL) (*crawlConfig, error) {
	switch {
	case o.workers < 1:
		return nil, fmt.Errorf("--workers must be at least 1, got %d", o.workers)
	case o.maxPages < 0, o.maxDepth < 0, o.perHost < 0, o.maxBody < 0, o.retries < 0, o.maxRedirects < 0:
		return nil, errors.New("--max-pages, --max-depth, --per-host, --max-body, --retries and --max-redirects cannot be negative")
	case o.delay < 0, o.timeout < 0, o.every < 0, o.recrawlAfter < 0, o.idleExit < 0:
		return nil, errors.New("durations cannot be negative")
	case o.every > 0 && o.recrawlAfter == 0:
		o.recrawlAfter = o.every
	}
	part, err := parsePartition(o.partition)
	if err != nil {
		return nil, err
	}
	allow, err := privnet.ParseAllowList(o.allowNets...)
	if err != nil {
		return nil, fmt.Errorf("--allow-net: %w", err)
	}
	sc := scope.Config{MaxDepth: o.maxDepth, SameHostOnly: o.sameHost && o.domains == ""}
	if o.domains != "" {
		for _, d := range strings.Split(o.domains, ",") {
			if d = strings.TrimSpace(d); d != "" {
				sc.Domains = append(sc.Domains, d)
			}
		}
	}
	if o.include != "" {
		sc.Include = []string{o.include}
	}
	if o.exclude != "" {
		sc.Exclude = []string{o.exclude}
	}
	s, err := scope.New(sc, seeds)
	if err != nil {
		return nil, err
	}
	return &crawlConfig{opts: *o, seeds: seeds, scope: s, partition: part, allow: allow, detector: privnet.New(allow...)}, nil
}

// parseSeeds parses the seed URLs given on the command line.
func parseSeeds(args []string) ([]*url.URL, error) {
	var seeds []*url.URL
	for _, a := range args {
		u, err := url.Parse(a)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("seed %q is not an absolute http or https URL", a)
		}
		u.Fragment = ""
		if u.Path == "" {
			u.Path = "/"
		}
		seeds = append(seeds, u)
	}
	return seeds, nil
}

// crawlRun is the state of one crawl: the frontier, the counters and what
// the report needs.
type crawlRun struct {
	cfg      *crawlConfig
	cutoff   time.Time // links retrieved before this are (re)fetched
	frontier *frontier
	graph    *discoveringGraph
	stats    *crawlStats
	report   *reportWriter
}

// check parses a link's URL and decides whether it is in scope at depth.
func (r *crawlRun) check(raw string, depth int) (*url.URL, scope.Reason) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, scope.SkipInvalid
	}
	return u, r.cfg.scope.Check(u, depth)
}

func (r *crawlRun) inPartition(id uuid.UUID) bool { return r.cfg.partition.contains(id) }

// crawlOnce runs one crawl until its frontier is empty, a limit is reached
// or it is interrupted.
func crawlOnce(ctx context.Context, env *environment, cfg *crawlConfig, st *stores, svc *service) error {
	o := cfg.opts
	cutoff := time.Unix(0, 0) // only links never retrieved
	if o.recrawlAfter > 0 {
		cutoff = time.Now().Add(-o.recrawlAfter)
	}
	// The first interrupt stops taking new pages and lets those in flight
	// finish, so that nothing fetched is lost; a second one abandons them.
	hardCtx, abandon := context.WithCancel(ctx)
	defer abandon()

	run := &crawlRun{cfg: cfg, cutoff: cutoff, stats: newCrawlStats()}
	f, err := newFrontier(hardCtx, o.maxPages, politenessOptions(cfg))
	if err != nil {
		return err
	}
	defer f.Close()
	run.frontier = f
	run.graph = newDiscoveringGraph(st.graph, run)
	if o.report != "" {
		run.report = newReportWriter()
	}
	svc.begin(run)
	defer svc.end(run)

	if err := seedFrontier(run, st.graph); err != nil {
		return err
	}
	if cfg.partition.count > 1 {
		run.frontier.refill = partitionRefill(run, st.graph, o.idleExit)
	}

	getter := crawler.NewURLGetter(cfg.detector)
	if tr, ok := getter.Transport.(*http.Transport); ok {
		// Keep a connection per worker alive: with net/http's default of
		// two idle connections per host, a crawl of one site would open
		// a new connection for nearly every page.
		tr.MaxIdleConnsPerHost = o.workers
	}
	defer getter.CloseIdleConnections()
	ccfg := crawler.Config{
		PrivateNetworkDetector: cfg.detector,
		URLGetter:              getter,
		Graph:                  run.graph,
		FetchWorkers:           o.workers,
		MaxBodyBytes:           o.maxBody,
		FetchTimeout:           o.timeout,
		MaxRedirects:           redirectLimit(o.maxRedirects),
		HeadFirst:              o.headFirst,
		LinkNormalization:      urlnorm.Options{SortQuery: o.sortQuery, StripTracking: o.stripTracking},
		DecorateRequest: func(req *http.Request) error {
			req.Header.Set("User-Agent", o.userAgent)
			return nil
		},
		OnOutcome: func(out crawler.Outcome) {
			run.stats.record(out)
			if run.report != nil {
				run.report.add(out)
			}
			run.frontier.done(out.LinkID)
		},
	}
	if st.index != nil {
		ccfg.Indexer = st.index
	}
	if o.retries > 0 {
		ccfg.Retry = &crawler.RetryPolicy{MaxRetries: o.retries}
	}
	// The frontier queues only links in scope; the gate applies the scope
	// to redirect targets too.
	scopeGate, err := crawler.NewScopeGate(cfg.scope)
	if err != nil {
		return err
	}
	ccfg.Gates = append(ccfg.Gates, scopeGate)
	if !o.ignoreRobots {
		gate, closeGate, err := newRobotsGate(cfg, getter, f)
		if err != nil {
			return err
		}
		defer closeGate()
		ccfg.Gates = append(ccfg.Gates, gate)
	}

	c, err := crawler.NewCrawler(ccfg)
	if err != nil {
		return err
	}

	prog := startProgress(env, run)
	interrupted := false
	stopWatch := make(chan struct{})
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		select {
		case <-env.interrupts:
		case <-stopWatch:
			return
		}
		interrupted = true
		prog.note("interrupted: finishing the pages in flight (interrupt again to abandon them)")
		run.frontier.stop()
		select {
		case <-env.interrupts:
			prog.note("interrupted again: abandoning the pages in flight")
			abandon()
		case <-stopWatch:
		}
	}()

	_, crawlErr := c.Crawl(hardCtx, run.frontier)
	close(stopWatch)
	<-watchDone
	prog.stop()

	sum := run.summary(st, interrupted)
	printSummary(env.stdout, sum)
	if run.report != nil {
		if err := run.report.write(o.report, sum, run.graph, st.graph); err != nil {
			crawlErr = errors.Join(crawlErr, err)
		}
	}
	switch {
	case crawlErr != nil && ctx.Err() == nil && !interrupted:
		return fmt.Errorf("crawl: %w", crawlErr)
	case interrupted:
		return errInterrupted
	case ctx.Err() != nil:
		return errInterrupted
	}
	return nil
}

// seedFrontier stores the seeds and queues them, and every link of this
// process's share that is still to be fetched (left over by an interrupted
// run, or due again under --recrawl-after), so that a run resumes where the
// last one stopped. Depth is counted from the links a run starts with.
func seedFrontier(run *crawlRun, g linkgraph.Graph) error {
	links := make([]*linkgraph.Link, len(run.cfg.seeds))
	for i, s := range run.cfg.seeds {
		links[i] = &linkgraph.Link{URL: s.String()}
	}
	if err := g.UpsertLinks(links); err != nil {
		return fmt.Errorf("store seeds: %w", err)
	}
	for _, l := range links {
		if l.RetrievedAt.Before(run.cutoff) && run.inPartition(l.ID) {
			if u, reason := run.check(l.URL, 0); reason == scope.InScope {
				run.frontier.add(*l, u.Host, 0)
			}
		}
	}
	_, err := queuePending(run, g)
	return err
}

// queuePending queues the links of this process's share that are due and in
// scope and were not queued in this run yet. It returns how many it queued.
func queuePending(run *crawlRun, g linkgraph.Graph) (int, error) {
	p := run.cfg.partition
	it, err := g.Links(p.from, p.to, run.cutoff)
	if err != nil {
		return 0, fmt.Errorf("list links to crawl: %w", err)
	}
	defer it.Close()
	n := 0
	for it.Next() {
		l := it.Link()
		if run.frontier.isSeen(l.ID) {
			continue
		}
		u, reason := run.check(l.URL, 0)
		if reason != scope.InScope {
			continue
		}
		if run.frontier.add(*l, u.Host, 0) {
			n++
		}
	}
	if err := it.Error(); err != nil {
		return n, fmt.Errorf("list links to crawl: %w", err)
	}
	return n, nil
}

// partitionRefill returns the frontier's refill function for a partitioned
// crawl: when this process has nothing left, it polls the shared graph for
// links that the other processes discovered in its share, and gives up after
// idle without any.
func partitionRefill(run *crawlRun, g linkgraph.Graph, idle time.Duration) func(context.Context) bool {
	const poll = 200 * time.Millisecond
	return func(ctx context.Context) bool {
		deadline := time.Now().Add(idle)
		for {
			n, err := queuePending(run, g)
			if err != nil {
				slog.Warn("polling the graph for new links", "err", err)
			}
			if n > 0 {
				return true
			}
			if time.Now().After(deadline) {
				return false
			}
			t := time.NewTimer(poll)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return false
			}
		}
	}
}

// startCPUProfile profiles the process into path until the returned function
// is called.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// redirectLimit maps --max-redirects to crawler.Config.MaxRedirects, where
// zero means the default and a negative value none.
func redirectLimit(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

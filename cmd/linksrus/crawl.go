package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/linksrus/linksrus/archive/warc"
	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/crawler/render"
	"github.com/linksrus/linksrus/crawler/workqueue"
	"github.com/linksrus/linksrus/internal/chromium"
	"github.com/linksrus/linksrus/pagerank"
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
	sitemaps      bool
	maxBody       int64
	timeout       time.Duration
	allowNets     stringList
	denyNets      stringList
	report        string
	partition     string
	leaseTTL      time.Duration
	idle          time.Duration
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
	rank          bool
	warcDir       string
	warcMaxSize   int64
	render        string
	chromium      string
	renderTabs    int
	renderTimeout time.Duration
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
	fs.BoolVar(&o.sitemaps, "sitemaps", true, "read each host's sitemaps (robots.txt Sitemap lines and /sitemap.xml) and crawl the pages they list in scope; --ignore-robots does not turn this off")
	fs.Int64Var(&o.maxBody, "max-body", crawler.DefaultMaxBodyBytes, "skip pages larger than `BYTES`")
	fs.DurationVar(&o.timeout, "timeout", crawler.DefaultFetchTimeout, "give up on a page after `D`")
	fs.Var(&o.allowNets, "allow-net", "let the crawler reach this private network `CIDR`, e.g. 127.0.0.0/8 (repeatable)")
	fs.Var(&o.denyNets, "deny-net", "never crawl this network `CIDR`, though public (e.g. your company's own ranges; repeatable; wins over --allow-net)")
	fs.StringVar(&o.report, "report", "", "write the summary and every URL's outcome as JSON to `FILE`")
	fs.StringVar(&o.partition, "partition", "", "the static alternative to a shared crawl: crawl only share `I/N` of the links, with N processes sharing one database")
	fs.DurationVar(&o.leaseTTL, "lease-ttl", engine.DefaultLeaseTTL, "with a PostgreSQL graph: a host stays with a process that stopped renewing its lease for `D` before others take it over")
	fs.DurationVar(&o.idle, "idle", engine.DefaultSharedIdle, "with a PostgreSQL graph: finish once nothing has been queued anywhere in the shared crawl for `D`")
	fs.DurationVar(&o.every, "every", 0, "run as a service: crawl again every `D`, re-fetching pages older than --recrawl-after")
	fs.DurationVar(&o.recrawlAfter, "recrawl-after", 0, "fetch again pages retrieved more than `D` ago (0: never)")
	fs.StringVar(&o.listen, "listen", "", "serve /healthz and /metrics on `ADDR` (e.g. 127.0.0.1:9090)")
	fs.IntVar(&o.retries, "retries", crawler.DefaultMaxRetries, "retry a transient failure (timeout, reset, 429, 5xx) up to `N` times, honouring Retry-After (0: never)")
	fs.IntVar(&o.maxRedirects, "max-redirects", crawler.DefaultMaxRedirects, "follow at most `N` redirects per page, each checked like a link")
	fs.BoolVar(&o.headFirst, "head-first", false, "send HEAD before GET to skip non-HTML without downloading it")
	fs.BoolVar(&o.sortQuery, "sort-query", false, "sort query parameters when normalising URLs (fewer duplicates, but some sites care about order)")
	fs.BoolVar(&o.stripTracking, "strip-tracking", false, "drop utm_*, gclid and fbclid query parameters when normalising URLs")
	fs.BoolVar(&o.rank, "rank", true, "compute PageRank at the end of each crawl (embedded graph only: with a shared database, run 'linksrus rank' once instead)")
	fs.StringVar(&o.warcDir, "warc", "", "archive every response in gzipped WARC files, with CDXJ indexes, in `DIR` (created if missing)")
	fs.Int64Var(&o.warcMaxSize, "warc-max-size", warc.DefaultMaxFileSize, "with --warc: begin a new WARC file once one reaches `BYTES`")
	fs.StringVar(&o.render, "render", "never", "render pages in headless Chromium, their scripts run, before reading their links and text: `MODE` never, auto (the pages that need it) or always; the browser's own requests keep the crawl's rules")
	fs.StringVar(&o.chromium, "chromium", "", "with --render: the browser to run (`PATH`; default: chromium, chromium-browser or google-chrome in PATH)")
	fs.IntVar(&o.renderTabs, "render-tabs", 2, "with --render: render at most `N` pages at once")
	fs.DurationVar(&o.renderTimeout, "render-timeout", 15*time.Second, "with --render: read a page whose scripts are still busy after `D` as it is then")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the crawl to `FILE`")
	fs.DurationVar(&o.idleExit, "partition-idle", 5*time.Second, "with --partition: finish after `D` without new links in this share")
}

func runCrawl(ctx context.Context, env *environment, args []string) error {
	fs := newFlagSet(env, "crawl", "crawl [flags] URL...")
	var o crawlOptions
	o.register(fs, env)
	seeds, err := parseFlags(env, fs, args)
	if err != nil {
		return err
	}
	if len(seeds) == 0 {
		return usageError(env, fs, "at least one seed URL is required")
	}
	cfg, err := o.parse(seeds)
	if err != nil {
		return usageError(env, fs, "%v", err)
	}
	// The option values are the engine's to check, before any store is
	// opened; its errors name the option, said here by its flag.
	if err := cfg.engineOptions(nil, nil, nil).Check(); err != nil {
		return usageError(env, fs, "%v", flagError(err))
	}

	svc := newService(env)
	if o.listen != "" {
		// Before the stores: a busy port should not leave a data
		// directory behind.
		stopServer, err := svc.serve(o.listen)
		if err != nil {
			return err
		}
		defer stopServer()
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
	if o.every <= 0 {
		return crawlOnce(ctx, env, cfg, st, svc)
	}
	return svc.loop(ctx, o.every, func(ctx context.Context) error {
		return crawlOnce(ctx, env, cfg, st, svc)
	})
}

// maxReferrers bounds how many linking pages a run remembers per link, for
// the broken-link report.
const maxReferrers = 5

// crawlConfig is the parsed form of crawlOptions: the values of the flags
// that need parsing (seeds, networks, lists, the partition), and those
// that the engine's options do not check.
type crawlConfig struct {
	opts         crawlOptions
	seeds        []string
	partition    partition
	share        *engine.Partition // nil: the whole graph
	detector     *privnet.Detector
	domains      []string
	perHost      int
	recrawlAfter time.Duration
	render       crawler.RenderMode
}

// parse parses the flags that need it and checks those whose values no
// engine option checks: the flags' own limits (--workers 0, --retries -1
// and the like mean nothing to the engine, or something else), the store
// flags, --report, --partition and the warc writer's --warc-max-size. The
// option values are the engine's to check (see engineOptions). The error
// is worded for a usage message.
func (o *crawlOptions) parse(args []string) (*crawlConfig, error) {
	switch {
	case o.workers == 0:
		return nil, errors.New("--workers must be at least 1, got 0")
	case o.warcMaxSize < 1:
		return nil, fmt.Errorf("--warc-max-size must be at least 1, got %d", o.warcMaxSize)
	case o.retries < 0:
		return nil, &crawler.OptionError{Field: "--retries", Value: o.retries, Problem: "is negative"}
	case o.maxRedirects < 0:
		return nil, &crawler.OptionError{Field: "--max-redirects", Value: o.maxRedirects, Problem: "is negative"}
	case o.every < 0:
		return nil, &crawler.OptionError{Field: "--every", Value: o.every, Problem: "is negative"}
	case o.maxBody == 0:
		return nil, errors.New("--max-body 0 would skip every page; give a size in bytes")
	case o.timeout == 0:
		return nil, errors.New("--timeout 0 would give up on every page; give a duration")
	case o.renderTabs < 1:
		return nil, fmt.Errorf("--render-tabs must be at least 1, got %d", o.renderTabs)
	case o.renderTimeout <= 0:
		return nil, fmt.Errorf("--render-timeout must be positive, got %v", o.renderTimeout)
	case o.partition != "" && o.stores.embeddedGraph():
		return nil, errors.New("--partition splits a crawl between processes sharing a database: use it with a PostgreSQL graph (--graph postgres://host/db)")
	}
	if err := o.stores.check(); err != nil {
		return nil, err
	}
	if o.report != "" {
		// Found out now rather than after the whole crawl.
		if fi, err := os.Stat(filepath.Dir(o.report)); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("--report %s: the directory %s does not exist", o.report, filepath.Dir(o.report))
		}
	}
	part, err := parsePartition(o.partition)
	if err != nil {
		return nil, err
	}
	share, err := part.options(o.idleExit)
	if err != nil {
		return nil, err
	}
	allow, err := privnet.ParseAllowList(o.allowNets...)
	if err != nil {
		return nil, fmt.Errorf("--allow-net: %w", err)
	}
	deny, err := privnet.ParseAllowList(o.denyNets...)
	if err != nil {
		return nil, fmt.Errorf("--deny-net: %w", err)
	}
	domains, err := splitList("--domains", o.domains)
	if err != nil {
		return nil, err
	}
	mode, err := crawler.ParseRenderMode(o.render)
	if err != nil {
		return nil, fmt.Errorf("--render %q: give never, auto or always", o.render)
	}
	if mode != crawler.RenderNever && o.chromium == "" {
		// Said now, in one line, rather than once the stores are open.
		if _, err := chromium.Path(); err != nil {
			return nil, fmt.Errorf("--render %s needs Chromium and none is in PATH: install it (apt-get install -y chromium) or name it with --chromium PATH", mode)
		}
	}
	cfg := &crawlConfig{
		opts:         *o,
		partition:    part,
		share:        share,
		detector:     privnet.New(allow...).WithDenied(deny...),
		domains:      domains,
		perHost:      o.perHost,
		recrawlAfter: o.recrawlAfter,
		render:       mode,
	}
	// Spelt as the crawl will spell them.
	seeds, err := engine.NormalizeSeeds(args, cfg.engineOptions(nil, nil, nil).Normalization())
	if err != nil {
		return nil, err
	}
	for _, s := range seeds {
		cfg.seeds = append(cfg.seeds, s.String())
	}
	if o.every > 0 && o.recrawlAfter == 0 {
		cfg.recrawlAfter = o.every
	}
	if o.perHost == 0 && allSeedsAllowListed(seeds, allow) {
		// Your own servers (a local copy of a site): the limit exists to
		// spare other people's.
		cfg.perHost = o.workers
	}
	return cfg, nil
}

// engineOptions builds the engine's options of a crawl from the flags:
// the one place they are made, for the check before the stores are
// opened (st nil) and for every run, one-shot or --every, with the opened
// stores and the run's report and archive (nil for none).
func (c *crawlConfig) engineOptions(st *stores, report *reportWriter, archive *warc.Writer) engine.Options {
	o := &c.opts
	opts := engine.Options{
		FetchOptions: crawler.FetchOptions{
			Workers:                o.workers,
			UserAgent:              o.userAgent,
			PrivateNetworkDetector: c.detector,
			MaxBodyBytes:           o.maxBody,
			FetchTimeout:           o.timeout,
			MaxRedirects:           noneIfZero(o.maxRedirects),
			HeadFirst:              o.headFirst,
			Retry:                  crawler.RetryPolicy{MaxRetries: noneIfZero(o.retries)},
			SortQuery:              o.sortQuery,
			StripTracking:          o.stripTracking,
		},
		PerHost:        c.perHost,
		Delay:          o.delay,
		IgnoreRobots:   o.ignoreRobots,
		IgnoreSitemaps: !o.sitemaps,
		AnyHost:        !o.sameHost,
		Domains:        c.domains,
		MaxDepth:       o.maxDepth,
		MaxPages:       o.maxPages,
		RecrawlAfter:   c.recrawlAfter,
		Render:         c.render,
		Rendering:      render.Options{Chromium: o.chromium, Tabs: o.renderTabs, Timeout: o.renderTimeout},
	}
	if o.include != "" {
		opts.Include = []string{o.include}
	}
	if o.exclude != "" {
		opts.Exclude = []string{o.exclude}
	}
	opts.Partition = c.share
	if o.report != "" {
		opts.Referrers = maxReferrers
	}
	if st == nil {
		// Whether the crawl is shared depends on the graph, not open yet:
		// its settings are checked as if it were.
		if opts.Partition == nil {
			opts.Shared = &engine.Shared{LeaseTTL: o.leaseTTL, Idle: o.idle}
		}
		return opts
	}
	opts.Graph = st.graph
	if _, ok := st.graph.(workqueue.Provider); ok && opts.Partition == nil {
		// Processes on one database share the crawl by host leases, through
		// the queue the graph keeps.
		opts.Shared = &engine.Shared{LeaseTTL: o.leaseTTL, Idle: o.idle}
	}
	if st.index != nil {
		opts.Index = st.index
	}
	if report != nil {
		opts.OnOutcome = report.add
	}
	if archive != nil {
		opts.Recorder = crawler.WARCRecorder(archive)
	}
	return opts
}

// optionFlags names the flag that sets each option the crawl and import
// commands set, for the options' errors (crawler.OptionError.Field).
var optionFlags = map[string]string{
	"FetchOptions.Workers":      "--workers",
	"FetchOptions.MaxBodyBytes": "--max-body",
	"FetchOptions.FetchTimeout": "--timeout",
	"Options.PerHost":           "--per-host",
	"Options.Delay":             "--delay",
	"Options.Domains":           "--domains",
	"Options.Include":           "--include",
	"Options.Exclude":           "--exclude",
	"Options.MaxDepth":          "--max-depth",
	"Options.MaxPages":          "--max-pages",
	"Options.RecrawlAfter":      "--recrawl-after",
	"Options.Partition.Idle":    "--partition-idle",
	"Options.Shared.LeaseTTL":   "--lease-ttl",
	"Options.Shared.Idle":       "--idle",
}

// flagError words an option's error by the flag that set the option; an
// error of an option no flag sets is returned as it is.
func flagError(err error) error {
	var oe *crawler.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	name, ok := optionFlags[oe.Field]
	if !ok {
		return err
	}
	return &crawler.OptionError{Field: name, Value: oe.Value, Problem: oe.Problem}
}

// noneIfZero maps a count flag where 0 means none (--retries,
// --max-redirects) to its option, where 0 means the default and a
// negative value none.
func noneIfZero(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// splitList splits a comma-separated flag value; an empty item (",,", a
// trailing comma, blanks) is an error rather than silently dropped, since
// dropping it could widen what the flag restricts.
func splitList(flagName, v string) ([]string, error) {
	if v == "" {
		return nil, nil
	}
	var out []string
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("%s %q has an empty item", flagName, v)
		}
		out = append(out, item)
	}
	return out, nil
}

// allSeedsAllowListed reports whether every seed is a special-purpose
// address the user allow-listed with --allow-net.
func allSeedsAllowListed(seeds []*url.URL, allow []netip.Prefix) bool {
	for _, s := range seeds {
		a, err := netip.ParseAddr(strings.Trim(s.Hostname(), "[]"))
		if err != nil || !privnet.IsSpecialPurpose(a.Unmap()) {
			return false
		}
		if !slices.ContainsFunc(allow, func(p netip.Prefix) bool { return p.Contains(a.Unmap()) }) {
			return false
		}
	}
	return len(seeds) > 0
}

// crawlOnce runs one crawl until its frontier is empty, a limit is reached
// or it is interrupted.
func crawlOnce(ctx context.Context, env *environment, cfg *crawlConfig, st *stores, svc *service) error {
	o := cfg.opts
	// The first interrupt stops taking new pages and lets those in flight
	// finish, so that nothing fetched is lost; a second one abandons them.
	hardCtx, abandon := context.WithCancel(ctx)
	defer abandon()

	// Taken away even when this crawl does not rank: it may change pages.
	mark := rankMark{links: -1}
	if o.stores.embeddedGraph() && st.index != nil {
		var err error
		if mark, err = takeRankMark(&o.stores); err != nil {
			return fmt.Errorf("crawl: %w", err)
		}
	}
	var report *reportWriter
	if o.report != "" {
		report = newReportWriter()
	}
	var archive *warc.Writer
	if o.warcDir != "" {
		// A writer per run: each run of --every begins files of its own.
		var err error
		archive, err = warc.NewWriter(warc.Options{Dir: o.warcDir, MaxFileSize: o.warcMaxSize, Software: o.userAgent})
		if err != nil {
			return fmt.Errorf("--warc: %w", err)
		}
	}
	opts := cfg.engineOptions(st, report, archive)
	e, err := engine.New(opts)
	if err != nil {
		return errors.Join(err, closeArchive(archive))
	}
	run, err := e.Start(hardCtx, cfg.seeds...)
	if err != nil {
		return errors.Join(err, closeArchive(archive))
	}
	svc.begin(run)
	prog := startProgress(env, run)
	rec := startStatusRecorder(env, &o.stores, run)
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
		run.Stop()
		select {
		case <-env.interrupts:
			prog.note("interrupted again: abandoning the pages in flight")
			abandon()
		case <-stopWatch:
		}
	}()

	sum, crawlErr := run.Wait()
	crawlErr = errors.Join(crawlErr, closeArchive(archive))
	close(stopWatch)
	<-watchDone
	prog.stop()
	svc.end(sum)
	rec.finish(ctx, st)

	s := newSummary(sum, cfg, interrupted)
	printSummary(env.stdout, s)
	if archive != nil {
		files, responses := archive.Stats()
		fmt.Fprintf(env.stdout, "archived %d responses in %d WARC file(s) in %s\n", responses, files, o.warcDir)
	}
	if opts.Shared != nil {
		perPage := float64(sum.SharedQueries) / float64(max(sum.Handed, 1))
		fmt.Fprintf(env.stdout, "shared crawl: %d coordination queries, %.2f per page handled\n", sum.SharedQueries, perPage)
	}
	if sum.Handed == 0 && crawlErr == nil && !interrupted && opts.Shared != nil {
		fmt.Fprintln(env.stdout, "nothing crawled by this process: the shared crawl had no host for it")
	} else if sum.Handed == 0 && crawlErr == nil && !interrupted {
		fmt.Fprintln(env.stdout, "nothing to crawl: every link in scope is fetched (--recrawl-after fetches pages again)")
		if st.index != nil {
			if note := indexNote(st.graph, st.index); note != "" {
				fmt.Fprintln(env.stdout, note)
			}
		}
	}
	if report != nil {
		var idx finder
		if st.index != nil {
			idx = st.index
		}
		if err := report.write(o.report, s, run, st.graph, idx); err != nil {
			crawlErr = errors.Join(crawlErr, err)
		}
	}
	if crawlErr == nil && !interrupted && ctx.Err() == nil {
		switch {
		case sum.Pages == 0:
			// Nothing fetched, nothing changed: the scores of the last
			// ranking hold as they did, unless seeds added links.
			if err := mark.putBackIfRanked(st.graph); err != nil {
				crawlErr = err
			}
		case o.rank && o.stores.embeddedGraph() && st.index != nil:
			if err := rankAfterCrawl(ctx, env, st, sum, mark); err != nil {
				crawlErr = err
			}
		}
	}
	switch {
	case crawlErr != nil && ctx.Err() == nil && !interrupted:
		return fmt.Errorf("crawl: %w", crawlErr)
	case interrupted, ctx.Err() != nil:
		return errInterrupted
	}
	failed := seedFailures(sum)
	if failed != nil && sum.Pages == 0 {
		// Nothing was crawled, and the seeds say why.
		return failed
	}
	if failed != nil {
		fmt.Fprintf(env.stderr, "linksrus crawl: %s\n", oneLine(failed))
	}
	return nil
}

// rankAfterCrawl computes PageRank and writes the scores, unless every page
// of the crawl was unchanged and the scores of the last rank still hold
// (rankMark); it leaves the marker behind it for the next crawl.
func rankAfterCrawl(ctx context.Context, env *environment, st *stores, sum *engine.Summary, mark rankMark) error {
	if sum.Unchanged == sum.Pages {
		ok, n, err := mark.stillRanked(st.graph)
		if err != nil {
			return fmt.Errorf("rank: %w", err)
		}
		if ok {
			fmt.Fprintln(env.stdout, "PageRank not computed again: no page changed since the last ranking")
			return mark.put(n)
		}
	}
	n, err := rank(ctx, env, st, pagerank.DefaultMemoryLimit)
	if err != nil {
		return err
	}
	return mark.put(n)
}

// closeArchive closes the WARC writer of a run, if any: the last file's
// index is written then.
func closeArchive(w *warc.Writer) error {
	if w == nil {
		return nil
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("--warc: %w", err)
	}
	return nil
}

// seedFailures says why seeds could not be fetched at all (refused
// connection, DNS failure, robots.txt unreachable, an error status, a
// private address...), with the error itself rather than a reason name,
// and the flag that lets the crawler in where one does.
func seedFailures(sum *engine.Summary) error {
	var errs []error
	for _, o := range sum.FailedSeeds() {
		if o.Reason == crawler.ReasonCanceled {
			continue
		}
		detail := o.Reason.String()
		if o.Err != nil {
			detail = o.Err.Error()
		} else if o.StatusCode != 0 {
			detail = fmt.Sprintf("%s %d", detail, o.StatusCode)
		}
		if o.Reason == crawler.ReasonPrivateNetwork {
			detail += "; to crawl it, allow its network with --allow-net " + allowNetFor(o.URL)
		}
		errs = append(errs, fmt.Errorf("seed %s could not be fetched: %s", o.URL, detail))
	}
	return errors.Join(errs...)
}

// allowNetFor suggests the --allow-net value that lets the crawler reach
// the host of rawURL: loopback's whole network for this machine, the
// address alone for another private one.
func allowNetFor(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "CIDR"
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "127.0.0.0/8"
	}
	a, err := netip.ParseAddr(host)
	switch {
	case err != nil:
		return "CIDR (the network its name resolves to)"
	case a.Unmap().Is4() && a.Unmap().IsLoopback():
		return "127.0.0.0/8"
	}
	return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()).String()
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

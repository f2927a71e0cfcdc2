package main

import (
	"net/netip"
	"strings"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/politeness"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/crawler/robots"
)

// politenessOptions returns the per-host limits of the frontier. Without
// --per-host, a crawl of public hosts gets politeness.DefaultMaxInFlight
// requests per host; a crawl whose seeds are all addresses the user
// allow-listed with --allow-net (their own servers, a local copy of a site)
// may use every worker on one host, since the limit exists to spare other
// people's servers.
func politenessOptions(cfg *crawlConfig) politeness.Options {
	o := cfg.opts
	opts := politeness.Options{MaxInFlight: o.perHost, MinDelay: o.delay}
	if opts.MaxInFlight == 0 && allSeedsAllowListed(cfg) {
		opts.MaxInFlight = o.workers
	}
	return opts
}

func allSeedsAllowListed(cfg *crawlConfig) bool {
	for _, s := range cfg.seeds {
		a, err := netip.ParseAddr(strings.Trim(s.Hostname(), "[]"))
		if err != nil || !privnet.IsSpecialPurpose(a.Unmap()) || !allowListed(cfg, a) {
			return false
		}
	}
	return len(cfg.seeds) > 0
}

func allowListed(cfg *crawlConfig, a netip.Addr) bool {
	for _, p := range cfg.allow {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

// newRobotsGate returns the crawler.Gate that obeys robots.txt and passes
// each host's Crawl-delay on to the frontier's scheduler, and a function
// releasing it.
func newRobotsGate(cfg *crawlConfig, getter robots.Getter, f *frontier) (crawler.Gate, func(), error) {
	checker, err := robots.New(getter, robots.Options{
		RobotName: robotName(cfg.opts.userAgent),
		UserAgent: cfg.opts.userAgent,
		// A silent host must not hold a worker longer than a page would.
		FetchTimeout: cfg.opts.timeout,
	})
	if err != nil {
		return nil, nil, err
	}
	gate, err := crawler.NewRobotsGate(checker, f.sched.SetDelay)
	if err != nil {
		checker.Close()
		return nil, nil, err
	}
	return gate, func() { checker.Close() }, nil
}

// robotName is the product token of a User-Agent ("linksrus-crawler/1.0
// (+...)" → "linksrus-crawler"), the name robots.txt groups are matched
// against: RFC 9309 allows letters, '-' and '_' only.
func robotName(userAgent string) string {
	name := userAgent
	if i := strings.IndexAny(name, "/ "); i >= 0 {
		name = name[:i]
	}
	name = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			return r
		}
		return -1
	}, name)
	if name == "" {
		return robots.DefaultRobotName
	}
	return name
}

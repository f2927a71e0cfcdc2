package scope

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/publicsuffix"

	"github.com/linksrus/linksrus/crawler/urlnorm"
)

// ErrConfig is matched (errors.Is) by New's errors for an invalid Config
// or seed: a *ConfigError.
var ErrConfig = errors.New("scope: invalid configuration")

// ConfigError is New's error for a setting of Config, or a seed, that it
// cannot use: which, its value and what is wrong with it, so that a caller
// can say which of its own inputs was at fault (package engine reports it
// as a crawler.OptionError). It matches ErrConfig.
type ConfigError struct {
	// Field is the Config field ("Domains", "Include", "Exclude",
	// "MaxDepth", "SameHostOnly") or "seeds".
	Field string
	// Value is the value refused (the item at fault, for a list), or nil.
	Value any
	// Problem says what is wrong: "is not a registrable domain (...)".
	Problem string
}

func (e *ConfigError) Error() string {
	switch v := e.Value.(type) {
	case nil:
		return fmt.Sprintf("%v: %s %s", ErrConfig, e.Field, e.Problem)
	case string:
		return fmt.Sprintf("%v: %s: %q %s", ErrConfig, e.Field, v, e.Problem)
	default:
		return fmt.Sprintf("%v: %s: %v %s", ErrConfig, e.Field, v, e.Problem)
	}
}

// Is reports whether target is ErrConfig.
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }

// Config selects the rules of a Scope. The zero value accepts every http(s)
// link at any depth.
type Config struct {
	// MaxDepth is the largest link depth fetched, seeds being depth 0 and
	// links found on a depth-d page depth d+1. 0 means no limit, which is
	// safe only together with a host or domain restriction.
	MaxDepth int
	// SameHostOnly restricts fetching to the hosts of the seeds (compared
	// without port, case-insensitively), as gocrawl's option of that name.
	SameHostOnly bool
	// Domains lists accepted registrable domains ("example.com",
	// "example.co.uk"): a link is fetched only if its host's eTLD+1 is
	// listed. A host that is an IP address or has no public suffix (e.g.
	// "localhost") is its own registrable domain. Empty means any domain,
	// unless SeedDomains adds some.
	Domains []string
	// SeedDomains adds the registrable domain of every seed to Domains, so
	// a crawl stays on the sites it was started on but follows their
	// subdomains.
	SeedDomains bool
	// Exclude lists regular expressions (RE2 syntax) matched against the
	// normalised URL string; a link matching any of them is skipped.
	Exclude []string
	// Include, if not empty, lists regular expressions of which a link must
	// match at least one. Exclude wins over Include.
	Include []string
	// Filter, if set, is called last for links that passed every other rule
	// and may reject them. It must be safe for concurrent use.
	Filter func(u *url.URL, depth int) bool
}

// Scope applies a Config. It is immutable and safe for concurrent use.
type Scope struct {
	maxDepth int
	hosts    map[string]struct{} // nil: any host
	domains  map[string]struct{} // nil: any domain
	exclude  []*regexp.Regexp
	include  []*regexp.Regexp
	filter   func(*url.URL, int) bool
}

// New builds a Scope from cfg and the seed URLs, which define the hosts
// and, with SeedDomains, the domains that are in scope. It returns an error
// wrapping ErrConfig for a bad pattern, domain or seed.
func New(cfg Config, seeds []*url.URL) (*Scope, error) {
	if cfg.MaxDepth < 0 {
		return nil, &ConfigError{Field: "MaxDepth", Value: cfg.MaxDepth, Problem: "is negative"}
	}
	s := &Scope{maxDepth: cfg.MaxDepth, filter: cfg.Filter}
	if (cfg.SameHostOnly || cfg.SeedDomains) && len(seeds) == 0 {
		return nil, &ConfigError{Field: "SameHostOnly", Problem: "and SeedDomains need at least one seed"}
	}
	if cfg.SameHostOnly {
		s.hosts = make(map[string]struct{}, len(seeds))
	}
	if len(cfg.Domains) > 0 || cfg.SeedDomains {
		s.domains = make(map[string]struct{}, len(cfg.Domains)+len(seeds))
	}
	for _, given := range cfg.Domains {
		d := canonicalHost(given)
		if d == "" {
			return nil, &ConfigError{Field: "Domains", Value: given, Problem: "is not a domain"}
		}
		if reg := registrable(d); reg != d {
			return nil, &ConfigError{Field: "Domains", Value: given, Problem: fmt.Sprintf("is not a registrable domain (its registrable domain is %q)", reg)}
		}
		s.domains[d] = struct{}{}
	}
	for _, u := range seeds {
		if !valid(u) {
			return nil, &ConfigError{Field: "seeds", Value: u, Problem: "is not an absolute http(s) URL"}
		}
		host := canonicalHost(u.Hostname())
		if s.hosts != nil {
			s.hosts[host] = struct{}{}
		}
		if cfg.SeedDomains {
			s.domains[registrable(host)] = struct{}{}
		}
	}
	var err error
	if s.exclude, err = compileAll("Exclude", cfg.Exclude); err != nil {
		return nil, err
	}
	if s.include, err = compileAll("Include", cfg.Include); err != nil {
		return nil, err
	}
	return s, nil
}

// Check reports whether u, found at the given depth from the seeds, is in
// scope, or the first rule that rejects it. u should be normalised (see
// package urlnorm) so that patterns see one spelling of each URL.
func (s *Scope) Check(u *url.URL, depth int) Reason {
	if !valid(u) {
		return SkipInvalid
	}
	if s.maxDepth > 0 && depth > s.maxDepth {
		return SkipDepth
	}
	var host string
	if s.hosts != nil || s.domains != nil {
		host = canonicalHost(u.Hostname())
	}
	if s.hosts != nil {
		if _, ok := s.hosts[host]; !ok {
			return SkipHost
		}
	}
	if s.domains != nil {
		if _, ok := s.domains[registrable(host)]; !ok {
			return SkipDomain
		}
	}
	if len(s.exclude) > 0 || len(s.include) > 0 {
		str := u.String()
		for _, re := range s.exclude {
			if re.MatchString(str) {
				return SkipExcluded
			}
		}
		if len(s.include) > 0 && !matchAny(s.include, str) {
			return SkipNotIncluded
		}
	}
	if s.filter != nil && !s.filter(u, depth) {
		return SkipFilter
	}
	return InScope
}

func matchAny(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

func compileAll(field string, patterns []string) ([]*regexp.Regexp, error) {
	res := make([]*regexp.Regexp, 0, len(patterns))
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, &ConfigError{Field: field, Value: p, Problem: "is not a regular expression: " + err.Error()}
		}
		res = append(res, re)
	}
	return res, nil
}

func valid(u *url.URL) bool {
	return u != nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// canonicalHost returns host (as url.URL.Hostname gives it) in the form
// the crawler's normalised URLs have it, so that hosts compare equal
// however they were spelt: case, a trailing dot, an IDN and its punycode,
// "0x7f.1" or "2130706433" and 127.0.0.1. A host urlnorm refuses (no link
// has it) is only lower-cased.
func canonicalHost(host string) string {
	if strings.Contains(host, ":") { // IPv6, without brackets
		if a, err := netip.ParseAddr(host); err == nil {
			return a.String()
		}
	} else if h, err := urlnorm.NormalizeHost(host); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// registrable returns the registrable domain (eTLD+1) of host; an IP
// address or a host that is itself a public suffix is returned unchanged.
func registrable(host string) string {
	if _, err := netip.ParseAddr(host); err == nil {
		return host
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return d
}

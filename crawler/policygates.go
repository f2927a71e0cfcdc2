package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/linksrus/linksrus/crawler/robots"
	"github.com/linksrus/linksrus/crawler/scope"
)

// ErrOutOfScope is the detail of the SkipError a ScopeGate returns; the
// error's text adds the rule that refused the URL.
var ErrOutOfScope = errors.New("outside the crawl's scope")

// ScopeGate is a Gate that refuses, with ReasonScope, URLs outside a
// scope.Scope. Because the Fetcher asks its Gates about every redirect
// target, it is what keeps redirects inside the scope that link discovery
// applies to links.
//
// A Gate sees URLs, not how far they are from the seeds, so the scope's
// depth limit is not applied here (Check is called at depth 0): that is
// for link discovery, which knows the depth.
type ScopeGate struct {
	scope *scope.Scope
}

// NewScopeGate returns a ScopeGate for s; it fails, with an error wrapping
// ErrInvalidConfig, for a nil s.
func NewScopeGate(s *scope.Scope) (*ScopeGate, error) {
	if s == nil {
		return nil, fmt.Errorf("%w: ScopeGate needs a scope", ErrInvalidConfig)
	}
	return &ScopeGate{scope: s}, nil
}

// Admit implements Gate.
func (g *ScopeGate) Admit(_ context.Context, u *url.URL) error {
	if r := g.scope.Check(u, 0); r != scope.InScope {
		return Skip(ReasonScope, fmt.Errorf("%w: %s", ErrOutOfScope, r))
	}
	return nil
}

// RobotsGate is a Gate that obeys robots.txt through a robots.Checker,
// which fetches and caches each host's file. A disallowed URL is skipped
// with ReasonRobots; an error of the checker (a closed checker, an
// unusable URL) with ReasonGate.
type RobotsGate struct {
	checker *robots.Checker
	onDelay func(host string, delay time.Duration)
}

// NewRobotsGate returns a RobotsGate asking c. onDelay, if not nil,
// receives the Crawl-delay of each host admitted or refused that has one
// (already capped by the checker), so that a per-host scheduler can space
// its requests: the Gate itself does not wait. It is called on every
// decision, from the fetch workers, and should be cheap. The caller keeps
// c and closes it after the crawl.
func NewRobotsGate(c *robots.Checker, onDelay func(host string, delay time.Duration)) (*RobotsGate, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: RobotsGate needs a robots.Checker", ErrInvalidConfig)
	}
	return &RobotsGate{checker: c, onDelay: onDelay}, nil
}

// Admit implements Gate.
func (g *RobotsGate) Admit(ctx context.Context, u *url.URL) error {
	d, err := g.checker.Allowed(ctx, u)
	if err != nil {
		return fmt.Errorf("crawler: robots.txt of %s: %w", u.Host, err)
	}
	if d.CrawlDelay > 0 && g.onDelay != nil {
		g.onDelay(u.Host, d.CrawlDelay)
	}
	if !d.Allowed {
		return Skip(ReasonRobots, fmt.Errorf("disallowed by robots.txt (%s)", d.Basis))
	}
	return nil
}

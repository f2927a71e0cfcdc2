package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/url"

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

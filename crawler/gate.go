package crawler

import (
	"context"
	"net/url"
)

//go:generate mockgen -typed -destination=mocks/gate.go -package=mocks github.com/linksrus/linksrus/crawler Gate

// A Gate decides, before a request is sent, whether a URL may be fetched.
// It is the fetch stage's extension point for policies that need more than
// the URL's text: robots.txt, crawl scope and depth, de-duplication.
// Policies that must hold something for the whole fetch, such as a per-host
// concurrency slot, belong in a URLGetter wrapper instead, releasing it when
// the response body is closed.
//
// Admit returns nil to let the fetch go ahead. To skip the URL it returns
// an error: a *SkipError (see Skip) makes the URL reported with the error's
// Reason, any other error with ReasonGate. Either way the page is dropped
// and the crawl goes on. Admit is called concurrently by the fetch workers
// and should honour ctx, which is cancelled when the crawl stops.
type Gate interface {
	Admit(ctx context.Context, u *url.URL) error
}

// GateFunc adapts a function to the Gate interface.
type GateFunc func(ctx context.Context, u *url.URL) error

// Admit calls f(ctx, u).
func (f GateFunc) Admit(ctx context.Context, u *url.URL) error { return f(ctx, u) }

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

// A RedirectGate is a Gate with a say on redirect targets of its own: the
// fetch stage calls AdmitRedirect for every URL a redirect leads to, after
// Admit, and treats its error as Admit's. A crawl uses it to claim the
// target, so that a page reached both through a redirect and by a link of
// its own is fetched once (ReasonDuplicate for the second).
type RedirectGate interface {
	Gate
	AdmitRedirect(ctx context.Context, u *url.URL) error
}

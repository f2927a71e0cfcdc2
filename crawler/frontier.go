package crawler

import (
	"context"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
)

// Frontier is where a crawl's pages come from and what paces their
// requests: the one contract between the crawler and what feeds it.
// Package engine's frontier implements it for the whole polite, recursive
// crawl; LinkFrontier implements it over a linkgraph.LinkIterator for
// Crawl. The crawler calls its seven methods, and a page meets them in
// this order:
//
//  1. Next hands the page out: a new one, or one parked before, which
//     resumes its fetch where it stopped.
//  2. Admit is asked about each URL the page is to be fetched at, its own
//     and then every redirect's target, after the crawler's own checks
//     (scheme, extension, private network) and Config.Gates.
//  3. Begin is asked right before each request the page makes (its GET, a
//     HEAD before it, each redirect hop, each retry). When Begin refuses,
//     Admit is not ready, or a retry must wait, the page goes back through
//     Park, and Next hands it out again later.
//  4. While the graph updater stores the page, KnownLinkID spares it the
//     links the frontier knows the IDs of, and Found hands the frontier the
//     links the page follows, stored and with their IDs, before the edges
//     to them are written.
//  5. Done reports the page's outcome, once, when its last copy leaves the
//     pipeline.
//
// Every method may be called from several goroutines at once. A frontier
// must not call back into the crawler from them, and should return
// quickly from all but Next, which blocks until it has a page.
type Frontier interface {
	// Next returns the next page to fetch, waiting until there is one:
	// a new page (NewPayload, with its validators and ModifiedAt as the
	// frontier knows them) or one handed back through Park. It returns
	// (nil, nil) once the crawl is over, or ctx has ended, and an error
	// when it can hand out nothing more because something failed (the
	// crawl stops with it). While it waits with pages of the crawl in
	// flight it may call starved, which makes the crawler write the store
	// batches it is gathering: the links the frontier waits for may be
	// there.
	Next(ctx context.Context, starved func()) (*Payload, error)

	// Admit decides whether p may be fetched at u: p's own URL, or, with
	// redirect set, the target of a redirect p followed (which a frontier
	// that fetches each URL once claims here, refusing one claimed before
	// with ReasonDuplicate). It returns nil to go ahead, an error wrapping
	// ErrNotReady when it cannot decide yet (the page is parked under u's
	// host until it can), or an error that skips the page, with the
	// Reason of a *SkipError (see Skip) or ReasonGate.
	Admit(ctx context.Context, p *Payload, u *url.URL, redirect bool) error

	// Begin is called right before a request of p is sent to host (a
	// URL's Host, with the port if any). It returns end, to be called once
	// the response has been read (or the request failed), or ok false if
	// host cannot take a request now: the page is then parked.
	Begin(p *Payload, host string) (end func(), ok bool)

	// Park takes back a page whose next request, to host, cannot be sent
	// now, or not before notBefore (a retry's backoff; zero for as soon
	// as the host allows). The frontier owns p from then on and hands it
	// out through Next when its fetch may go on; a frontier that cannot
	// serve it any more calls p.Abandon.
	Park(p *Payload, host string, notBefore time.Time)

	// KnownLinkID returns the ID of the link with the URL if the frontier
	// knows it without the graph, and needs nothing back from the graph
	// about it (a link it has queued, fetched, or found out of its scope):
	// the graph updater then does not upsert the link again. A page's own
	// link is left out only when its ID is the one the page was handed out
	// for; the updater then takes the page's RetrievedAt as the stored
	// one, so a frontier that knows pages must hand them out with the
	// RetrievedAt the graph has.
	KnownLinkID(url string) (uuid.UUID, bool)

	// Found reports pages stored in the graph, each with the links it
	// follows, before the edges to them are written: links to crawl
	// next. The slices, and the pages, are the crawler's, valid during
	// the call only. An error stops the crawl.
	Found(ctx context.Context, found []Found) error

	// Done reports the outcome of a page Next handed out, once, when its
	// last copy has left the pipeline (a parked page is not done).
	Done(o Outcome)
}

// Found is a page stored in the graph and the links it follows, for
// Frontier.Found.
type Found struct {
	// Page is the page: Page.LinkID is the link it was handed out as,
	// Page.PageID the link it is stored under (another one when it was
	// redirected: see Payload.PageID).
	Page *Payload
	// Links are the links the page follows (its no-follow links are not
	// among them), each with its ID: those the frontier knew
	// (KnownLinkID) with that alone, the others as the graph stored them,
	// their RetrievedAt included.
	Links []linkgraph.Link
}

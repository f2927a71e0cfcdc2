package crawler

import (
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/textindex"
)

//go:generate mockgen -typed -destination=mocks/urlgetter.go -package=mocks github.com/linksrus/linksrus/crawler URLGetter

// URLGetter sends HTTP requests; *http.Client implements it. The fetcher
// builds each request itself (with the fetch's context and the configured
// request decorator), so a URLGetter only has to carry it out: wrap one to
// add retries, rate limits or caching.
type URLGetter interface {
	Do(req *http.Request) (*http.Response, error)
}

//go:generate mockgen -typed -destination=mocks/detector.go -package=mocks github.com/linksrus/linksrus/crawler PrivateNetworkDetector

// PrivateNetworkDetector judges whether a URL's host is in a private network
// from the host alone, without a DNS lookup, because it runs on every
// extracted link. *privnet.Detector implements it. Names that only resolve
// to private addresses are caught when they are dialled (see privnet).
type PrivateNetworkDetector interface {
	// IsPrivate reports whether host (without brackets or port) is a
	// private address or a name that can only be local. An error means the
	// host is malformed; the link is then dropped.
	IsPrivate(host string) (bool, error)
}

//go:generate mockgen -typed -destination=mocks/graph.go -package=mocks github.com/linksrus/linksrus/crawler Graph

// Graph is the part of a link graph the crawler writes to; every
// linkgraph backend implements it.
type Graph interface {
	// UpsertLinks inserts or updates links by URL and fills in their IDs.
	UpsertLinks(links []*linkgraph.Link) error
	// UpsertEdges inserts or updates edges and fills in their IDs.
	UpsertEdges(edges []*linkgraph.Edge) error
	// RemoveStaleEdges removes the edges from fromID last updated before
	// updatedBefore.
	RemoveStaleEdges(fromID uuid.UUID, updatedBefore time.Time) error
}

// EdgeRefresher is implemented by a Graph (and the view a BatchGraph
// gives) that can move the edges of pages to a new time without their
// being upserted again; every linkgraph backend does. The crawler asks
// for pages it has validators for with a conditional request only when
// its graph is one: a page found unchanged keeps its edges, which must be
// seen as refreshed (or a later RemoveStaleEdges would delete them).
type EdgeRefresher interface {
	// RefreshEdges sets the UpdatedAt of every edge leaving fromIDs to
	// updatedAt where that is later.
	RefreshEdges(fromIDs []uuid.UUID, updatedAt time.Time) error
}

// BatchGraph is a Graph that keeps state from one call to the next while a
// batch of pages is stored: for example a wrapper that notes the links
// UpsertLinks stores and follows them once UpsertEdges stores the page's
// edges to them. The graph updater stores several batches at once (see
// Config.GraphWriters), so it asks such a graph for a view of its own for
// each batch, and makes all of that batch's calls on the view.
type BatchGraph interface {
	Graph
	// ForBatch returns the Graph to store one batch of pages with.
	ForBatch() Graph
}

// RedirectRecorder is implemented by a Graph (or the view a BatchGraph
// gives) that wants to know, before a batch's edges are stored, which page
// each redirected link led to: the page is stored under its final URL's
// link, which the caller that handed out the original link may not know
// (a frontier tracking the depth of the links it queued, say).
type RedirectRecorder interface {
	// Redirected reports that the link from was fetched and its body came
	// from the link to.
	Redirected(from, to uuid.UUID)
}

// KnownLinks is implemented by a Graph (or the view a BatchGraph gives)
// that knows the IDs of some links without asking its store, and needs
// nothing back from the store about them: the crawl engine's view knows
// the links its run has already queued or fetched, and those it found out
// of its scope. Most links a page is found to have are such links (a
// site's navigation, on every page), so the graph updater leaves those out
// of UpsertLinks and takes their IDs from KnownLinkID.
//
// A page's own link is left out too when KnownLinkID gives the ID the page
// was fetched for (Payload.LinkID). The updater then takes the payload's
// RetrievedAt for the stored one, which it otherwise reads back from
// UpsertLinks to tell whether the page has edges of an earlier fetch to
// remove: a Graph implementing KnownLinks must be used with a link source
// whose links carry their stored RetrievedAt, as the engine's frontier
// hands out the links its view knows. With a source that leaves it zero,
// a page fetched before would keep the edges it no longer has.
type KnownLinks interface {
	// KnownLinkID returns the ID of the link with the URL, if known.
	KnownLinkID(url string) (uuid.UUID, bool)
}

//go:generate mockgen -typed -destination=mocks/indexer.go -package=mocks github.com/linksrus/linksrus/crawler Indexer

// Indexer is the part of a text index the crawler writes to; every
// textindex backend implements it.
type Indexer interface {
	// Index inserts or replaces the document with doc.LinkID.
	Index(doc *textindex.Document) error
}

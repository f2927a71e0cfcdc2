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
// add retries, rate limits or caching. A getter that takes a host back
// from the crawl while a request to it runs makes the request, or the
// reading of its body, fail with an error wrapping ErrWithdrawn.
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

// EdgeRefresher is implemented by a Graph that can move the edges of pages
// to a new time without their being upserted again; every linkgraph
// backend does. It is an optional capability (see the package
// documentation): the crawler asks for pages it has validators for with a
// conditional request only when its graph is one, since a page found
// unchanged keeps its edges, which must be seen as refreshed (or a later
// RemoveStaleEdges would delete them).
type EdgeRefresher interface {
	// RefreshEdges sets the UpdatedAt of every edge leaving fromIDs to
	// updatedAt where that is later.
	RefreshEdges(fromIDs []uuid.UUID, updatedAt time.Time) error
}

// refresherOf returns g as an EdgeRefresher, if it is one: the one probe
// of the capability, which the fetch stage (conditional requests) and the
// graph updater (refreshing unchanged pages' edges) make when they are
// built.
func refresherOf(g Graph) (EdgeRefresher, bool) {
	r, ok := g.(EdgeRefresher)
	return r, ok
}

//go:generate mockgen -typed -destination=mocks/indexer.go -package=mocks github.com/linksrus/linksrus/crawler Indexer

// Indexer is the part of a text index the crawler writes to; every
// textindex backend implements it.
type Indexer interface {
	// Index inserts or replaces the document with doc.LinkID.
	Index(doc *textindex.Document) error
}

package linkgraph

import (
	"bytes"
	"time"

	"github.com/google/uuid"
)

// Graph is the link graph. All backends are safe for concurrent use and
// behave identically; the graphtest package checks that.
//
// # Identity
//
// A link is identified by its URL. Upserting a URL the graph already knows
// keeps the stored ID and the later of the two RetrievedAt values; a new URL
// gets a random (version 4) ID. Any ID the caller sets before the call is
// ignored. An edge is identified by its (Src, Dst) pair; upserting an existing
// pair keeps its ID and the later of the two UpdatedAt values.
//
// On return from an upsert the caller's value holds what is now stored: ID,
// RetrievedAt or UpdatedAt included. Values passed in and returned are never
// retained by the graph, so callers cannot change stored state through them.
//
// # Validators
//
// A link's ETag and LastModified belong to the retrieval its RetrievedAt
// records. An upsert that stores a new link stores them as given; one that
// moves a known link's RetrievedAt later replaces them with its own (empty
// ones included: the server stopped sending them); any other upsert leaves
// them as they are. Within one UpsertLinks call, the occurrence of a URL
// with the latest RetrievedAt (the first of equals) brings the validators.
// On return the caller's value holds the stored validators.
//
// # Time
//
// Timestamps are stored in UTC in whole microseconds (PostgreSQL's
// precision), a finer time rounded up, never down: a stored time is never
// before the time it was given as. Time bounds given to Links, Edges and
// RemoveStaleEdges are compared exactly with the stored value (a time
// stored at a microsecond is before a bound later in that microsecond), so
// every backend gives the same answers. The zero time.Time is a valid
// RetrievedAt meaning "never retrieved"; it is earlier than any bound other
// than the zero time itself.
//
// An edge upserted with a zero UpdatedAt, or refreshed by RefreshEdges with
// a zero time, is stamped with the graph's clock, which is the calling
// process's time.Now for every backend, PostgreSQL's included (the
// server's clock reading is cut to the microsecond, so its stamp could be
// before a time the caller read just ahead of the call). Stored times keep
// the order of the caller's clock readings, even within one microsecond:
//
//   - a time T read before a write call is never after a time the call
//     stores that was read after T: the graph's own stamp, or a
//     RetrievedAt or UpdatedAt the caller took from time.Now after T. So
//     "retrieved before T" or "updated before T" never includes a link
//     retrieved or an edge seen after T was read.
//   - a time read after a write call returns is after every time the call
//     stored that was read from the clock before the call (the graph's
//     stamp included), so those do count as before it. A call that would
//     return within the microsecond of such a time waits, spinning, for
//     the clock to pass it: less than a microsecond, and nothing at all
//     for a call that took longer, as one to a database server does.
//
// So a caller that reads time.Now, upserts a page's current edges and
// then calls RemoveStaleEdges with that reading removes exactly the edges
// it did not upsert, however fast the graph is.
//
// # Ranges
//
// Links and Edges visit the IDs in the half-open range [fromID, toID) in
// byte-wise order of the 16 bytes of the UUID (CompareIDs), which is also
// how PostgreSQL orders the uuid type. A toID of uuid.Nil means "no upper
// bound", so Links(uuid.Nil, uuid.Nil, t) visits the whole graph and the
// last partition of a split can reach uuid.Max. A non-nil toID that is not
// above fromID gives an empty range.
//
// Iterators read the graph in pages, each page a consistent snapshot; a long
// iteration does not block writers, and it may or may not see changes made
// while it runs.
type Graph interface {
	// UpsertLink creates the link or updates the existing link with the same
	// URL, and fills in link.ID and link.RetrievedAt with the stored values.
	UpsertLink(link *Link) error

	// UpsertLinks is UpsertLink for many links at once: one transaction and,
	// for a database, one round trip. The same URL may appear more than once;
	// every occurrence receives the same ID. Either all links are stored or,
	// on error, none is.
	UpsertLinks(links []*Link) error

	// FindLink returns a copy of the link with the given ID, or an error
	// matching ErrNotFound.
	FindLink(id uuid.UUID) (*Link, error)

	// Links iterates, in ID order, over the links whose ID is in
	// [fromID, toID) and whose RetrievedAt is before retrievedBefore.
	Links(fromID, toID uuid.UUID, retrievedBefore time.Time) (LinkIterator, error)

	// UpsertEdge creates the edge or refreshes the existing edge with the same
	// Src and Dst, and fills in edge.ID and edge.UpdatedAt with the stored
	// values. It returns an error matching ErrUnknownEdgeLinks if Src or Dst
	// is not a link of the graph.
	UpsertEdge(edge *Edge) error

	// UpsertEdges is UpsertEdge for many edges at once: one transaction and,
	// for a database, one round trip. The same (Src, Dst) pair may appear
	// more than once. Either all edges are stored or, on error (for instance
	// one matching ErrUnknownEdgeLinks), none is.
	UpsertEdges(edges []*Edge) error

	// Edges iterates, in (Src, Dst) order, over the edges whose Src is in
	// [fromID, toID) and whose UpdatedAt is before updatedBefore.
	Edges(fromID, toID uuid.UUID, updatedBefore time.Time) (EdgeIterator, error)

	// RemoveStaleEdges deletes the edges leaving fromID whose UpdatedAt is
	// before updatedBefore.
	RemoveStaleEdges(fromID uuid.UUID, updatedBefore time.Time) error

	// RefreshEdges sets the UpdatedAt of every edge leaving each of
	// fromIDs to updatedAt (the graph's clock if zero), where that is
	// later than the stored one: the pages were fetched again and found
	// unchanged (a 304 answer to a conditional request), so their edges
	// were seen again without being upserted one by one. IDs without
	// edges, or unknown, are no error. One transaction for all of them.
	RefreshEdges(fromIDs []uuid.UUID, updatedAt time.Time) error

	// Close releases the graph's resources (files, connections). Calls made
	// after Close return errors; iterators must be closed before the graph.
	Close() error
}

// CompareIDs orders link IDs as the graph does (Graph, "Ranges"): byte-wise
// over the 16 bytes of the UUID. It returns -1 when a comes before b, +1
// when after, and 0 when they are equal. Links visits IDs, and Edges the
// edges' Src IDs, in this order, and an ID is in the range [fromID, toID)
// when CompareIDs(fromID, id) <= 0 and, unless toID is uuid.Nil,
// CompareIDs(id, toID) < 0.
//
// Code that sorts, merges or splits IDs alongside a graph (a crawl split
// into ID ranges, a batch sorted into the order its rows are locked in)
// uses it so that its order is the graph's.
func CompareIDs(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) }

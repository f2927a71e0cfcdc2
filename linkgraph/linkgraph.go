// Package linkgraph defines the link graph that the crawler reads its
// frontier from and writes what it discovers to: every known URL (a Link),
// when it was last retrieved, and the edges between pages.
//
// The package holds only the types, the Graph interface and the errors;
// backends live in sub-packages (memory, an embedded persistent store,
// postgres) and register themselves with Register so that Open can select one
// from a URL-like string, the way database/sql selects a driver.
//
// # Opening a backend directly
//
// A program that knows its backend may call the backend's own constructor,
// which has the same shape in every backend that stores anything:
//
//	func Open(ctx context.Context, where string, opts Options) (*Graph, error)
//
//	bolt.Open(ctx, "/var/lib/linksrus/graph.db", bolt.Options{NoSync: true})
//	postgres.Open(ctx, "postgres://crawler@db/linksrus", postgres.Options{})
//
// where is the file's path or the database's connection string. ctx bounds
// the opening only (waiting for a lock, connecting, migrating the schema),
// never the life of the Graph; a ctx already done opens and creates
// nothing, and one that ends while Open waits makes it fail with an error
// wrapping ctx.Err(). The zero Options is the default, and the URL form of
// Open above sets the same options from the URL's query (bolt's ?nosync=1
// and ?mode=ro), so both ways open the same graph.
//
// The one exception is memory.New(), which takes nothing and cannot fail:
// there is nothing to locate, wait for or set, and a context that would be
// ignored and an error that is always nil would only mislead.
package linkgraph

import (
	"errors"
	"time"

	"github.com/google/uuid"
)

var (
	// ErrNotFound is returned when a link or edge does not exist.
	ErrNotFound = errors.New("linkgraph: not found")

	// ErrUnknownEdgeLinks is returned when an edge refers to a source or
	// destination link that the graph does not know.
	ErrUnknownEdgeLinks = errors.New("linkgraph: unknown source and/or destination for edge")

	// ErrInvalidLink is returned when a link cannot be stored: its URL is
	// empty, longer than MaxURLLength, not valid UTF-8 or contains a NUL
	// byte (which no SQL text column accepts), or a validator (ETag,
	// LastModified) is longer than MaxValidatorLength, not valid UTF-8 or
	// contains a NUL byte.
	ErrInvalidLink = errors.New("linkgraph: invalid link")

	// ErrCorrupt is returned (wrapped) by a backend whose stored data is
	// damaged (a file overwritten, a disk error): the operation failed and
	// no later one on the same graph can be trusted.
	ErrCorrupt = errors.New("linkgraph: store is corrupt")

	// ErrLocked is returned (wrapped) by a backend's open when the store
	// is one process's at a time (an embedded file) and another process
	// holds it. A command may then wait, or read what that process
	// publishes instead.
	ErrLocked = errors.New("linkgraph: store is in use by another process")
)

// MaxURLLength is the longest URL, in bytes, the graph stores. It is the
// common practical limit (sitemaps.org's, and about what browsers accept),
// and it keeps every backend's URL index within its key size limits.
const MaxURLLength = 2048

// MaxValidatorLength is the longest ETag or LastModified, in bytes, the
// graph stores. Real validators are a few dozen bytes; the bound keeps a
// hostile server from making every link row large.
const MaxValidatorLength = 256

// Link is a URL known to the graph.
type Link struct {
	// ID uniquely identifies the link. It is assigned by the graph.
	ID uuid.UUID
	// URL is the link's address; a link is identified by its URL.
	URL string
	// RetrievedAt is when the link was last fetched; the zero time means
	// never.
	RetrievedAt time.Time
	// ETag and LastModified are the validators of the response the link
	// was last retrieved with, as the server sent them (its ETag and
	// Last-Modified headers), so that the next fetch can be a conditional
	// request; empty when the server sent none. They travel with
	// RetrievedAt: see Graph's "Validators".
	ETag         string
	LastModified string
}

// Edge is a directed connection between two links: the page Src links to Dst.
type Edge struct {
	// ID uniquely identifies the edge. It is assigned by the graph.
	ID uuid.UUID
	// Src is the ID of the linking page.
	Src uuid.UUID
	// Dst is the ID of the linked page.
	Dst uuid.UUID
	// UpdatedAt is when the edge was last seen.
	UpdatedAt time.Time
}

// LinkIterator iterates over links.
type LinkIterator interface {
	// Next advances the iterator. It returns false when there are no more
	// links or an error occurred; Error tells which.
	Next() bool
	// Error returns the error that stopped the iteration, if any.
	Error() error
	// Close releases the resources held by the iterator.
	Close() error
	// Link returns the link at the current position. The returned value is
	// a copy the caller may keep and modify.
	Link() *Link
}

// EdgeIterator iterates over edges.
type EdgeIterator interface {
	// Next advances the iterator. It returns false when there are no more
	// edges or an error occurred; Error tells which.
	Next() bool
	// Error returns the error that stopped the iteration, if any.
	Error() error
	// Close releases the resources held by the iterator.
	Close() error
	// Edge returns the edge at the current position. The returned value is
	// a copy the caller may keep and modify.
	Edge() *Edge
}

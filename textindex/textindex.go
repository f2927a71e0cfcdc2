// Package textindex defines the full-text index that the crawler writes
// every page's title and text to and that the command-line tool searches.
//
// The package holds only the types, the Indexer interface and the errors;
// backends live in sub-packages (memory, an embedded persistent store,
// postgres) and register themselves with Register so that Open can select one
// from a URL-like string, the way database/sql selects a driver:
//
//	import _ "github.com/linksrus/linksrus/textindex/sqlite"
//	idx, err := textindex.Open(ctx, "sqlite:///var/lib/linksrus/index.db")
//
// The URL forms are
//
//	memory://                                  textindex/memory, for tests and small jobs
//	sqlite:///absolute/path/index.db           textindex/sqlite, the embedded default
//	sqlite:relative/path/index.db
//	postgres://user:pass@host:5432/db?...      textindex/postgres (also postgresql://)
//
// Query describes how expressions are read (plain text for match and
// phrase queries, a small search-box syntax for QueryTypeSearch, never a
// backend's own query language) and the order of results; MakeSnippet
// cuts the excerpt a result page shows. The conformance suite in
// textindex/indextest pins down the behaviour every backend shares.
package textindex

import (
	"errors"
	"time"

	"github.com/google/uuid"
)

var (
	// ErrNotFound is returned when a document does not exist.
	ErrNotFound = errors.New("textindex: not found")

	// ErrMissingLinkID is returned when a document without a LinkID is
	// indexed.
	ErrMissingLinkID = errors.New("textindex: document does not provide a valid linkID")

	// ErrClosed is returned when an index is used after Close.
	ErrClosed = errors.New("textindex: index is closed")

	// ErrUnknownQueryType is returned by Search for a Query.Type that is
	// neither QueryTypeMatch nor QueryTypePhrase.
	ErrUnknownQueryType = errors.New("textindex: unknown query type")

	// ErrInvalidScore is returned for a PageRank that is NaN or infinite,
	// which would make the result order undefined.
	ErrInvalidScore = errors.New("textindex: score must be a finite number")
)

// Document is a page as stored in the index.
type Document struct {
	// LinkID is the ID of the page's link in the link graph; it
	// identifies the document.
	LinkID uuid.UUID
	// URL is the page's address.
	URL string
	// Title is the page's title.
	Title string
	// Content is the page's visible text.
	Content string
	// IndexedAt is when the document was last indexed. Every backend
	// stores it in UTC with microsecond precision (PostgreSQL's), truncated
	// towards the past (see Timestamp), as package linkgraph stores times.
	IndexedAt time.Time
	// PageRank is the page's score as computed by a ranking job.
	PageRank float64
	// Relevance is set on search results only: the backend's text
	// relevance of the document for the query (BM25 for memory and
	// sqlite, ts_rank for postgres). Results are ordered by
	// Relevance + PageRank (see Query).
	Relevance float64
}

// Timestamp returns t as every index backend stores it: UTC, truncated to
// the microsecond, without a monotonic clock reading.
func Timestamp(t time.Time) time.Time { return t.Truncate(time.Microsecond).UTC() }

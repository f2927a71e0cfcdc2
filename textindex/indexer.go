package textindex

import (
	"context"
	"fmt"

	"github.com/google/uuid"
)

// Indexer is a full-text index of documents. Implementations are safe for
// concurrent use by multiple goroutines.
type Indexer interface {
	// Index inserts doc, or replaces the document with the same LinkID.
	// The PageRank of a replaced document, or one recorded earlier by
	// UpdateScore, is kept and doc.PageRank ignored, because scores are
	// owned by the ranking job, not by the crawler that indexes pages;
	// doc.PageRank is used only when the index knows no score for the
	// LinkID. A document without a LinkID yields ErrMissingLinkID.
	Index(doc *Document) error

	// FindByID returns a copy of the document with the given LinkID, or
	// ErrNotFound. A score recorded by UpdateScore for a document that was
	// never indexed does not make it findable.
	FindByID(linkID uuid.UUID) (*Document, error)

	// Search runs q and returns an iterator over the matching documents,
	// best first (see Query for the order). The caller must Close it.
	Search(q Query) (Iterator, error)

	// UpdateScore sets the PageRank of the document with the given
	// LinkID. When no such document has been indexed yet the score is
	// recorded as a placeholder: it never shows up in search results and
	// becomes the document's PageRank once the document is indexed.
	UpdateScore(linkID uuid.UUID, score float64) error

	// UpdateScores sets the PageRank of many documents, as UpdateScore
	// does for each (ids[i] gets scores[i]), in one call (one transaction
	// where the backend has them): all, or none if any argument is bad.
	// A ranking job writes its scores so.
	UpdateScores(ids []uuid.UUID, scores []float64) error

	// UpdateAnchors recomputes the anchor text (Document.Anchors) of every
	// searchable document from the Links of the documents indexed: the
	// distinct texts of the links to it (or to another URL of its
	// duplicate group) from other pages, only a group's canonical
	// counting for its group, a text counted once per page and held once,
	// the 32 given by the most pages. It replaces the anchor text in one
	// transaction where the backend has them. Search weighs anchor text
	// (Weights.Anchor) from then until the next call: a ranking job calls
	// it after a crawl, as it writes the scores, so that a page indexed
	// after the pages linking to it gets their words too.
	UpdateAnchors(ctx context.Context) error

	// Close releases the resources held by the indexer. Using an indexer
	// after Close is an error.
	Close() error
}

// Iterator walks over the results of a search.
type Iterator interface {
	// Next advances the iterator. It returns false when there are no more
	// documents or an error occurred; Error tells which.
	Next() bool

	// Document returns the document at the current position. The returned
	// value is a copy the caller may keep and modify.
	Document() *Document

	// Error returns the error that stopped the iteration, if any.
	Error() error

	// Close releases the resources held by the iterator. It is safe to
	// call more than once.
	Close() error

	// TotalCount returns the number of documents matching the query in
	// all, regardless of Query.Offset and of how far the iteration got.
	TotalCount() uint64
}

// ContextSearcher is implemented by indexes whose searches end when a
// context does: the count, and every page of results the iterator reads
// later. Every backend of this module implements it.
type ContextSearcher interface {
	SearchContext(ctx context.Context, q Query) (Iterator, error)
}

// SearchContext runs q on idx and stops when ctx ends, with an error
// wrapping ctx's (from SearchContext, or later from the iterator's Error),
// so that no query costs more than the caller allows. An index that does
// not implement ContextSearcher is only checked before it starts.
func SearchContext(ctx context.Context, idx Indexer, q Query) (Iterator, error) {
	if cs, ok := idx.(ContextSearcher); ok {
		return cs.SearchContext(ctx, q)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("textindex: search: %w", err)
	}
	return idx.Search(q)
}

// Counter is implemented by an index that can tell how many documents it
// holds; every backend of this module does.
type Counter interface {
	// Count returns the number of documents indexed (not those with only
	// a score recorded by UpdateScore), a group of duplicates counting
	// once: the documents a search can return.
	Count(ctx context.Context) (uint64, error)
}

// Count returns the number of documents idx holds, and false if idx cannot
// tell.
func Count(ctx context.Context, idx Indexer) (uint64, bool, error) {
	c, ok := idx.(Counter)
	if !ok {
		return 0, false, nil
	}
	n, err := c.Count(ctx)
	return n, true, err
}

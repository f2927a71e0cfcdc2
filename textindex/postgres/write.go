package postgres

import (
	"context"
	"fmt"
	"math"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

// Index inserts or replaces doc; see textindex.Indexer. One upsert
// statement does it, so no transaction is needed: the conflict branch keeps
// page_rank, whether it came from an earlier Index or a placeholder.
func (i *Index) Index(doc *textindex.Document) error {
	if doc == nil || doc.LinkID == uuid.Nil {
		return fmt.Errorf("postgres: index: %w", textindex.ErrMissingLinkID)
	}
	if math.IsNaN(doc.PageRank) || math.IsInf(doc.PageRank, 0) {
		return fmt.Errorf("postgres: index %s: %w", doc.LinkID, textindex.ErrInvalidScore)
	}
	// Pages with NULs or broken UTF-8 are rare but real; PostgreSQL
	// would reject them.
	url, title, content := sanitize(doc.URL), sanitize(doc.Title), sanitize(doc.Content)
	err := withRetry(context.Background(), func(ctx context.Context) error {
		_, err := i.pool.Exec(ctx, `
			INSERT INTO textindex_documents (link_id, url, title, content, indexed_at, page_rank, indexed)
			VALUES ($1, $2, $3, $4, $5, $6, true)
			ON CONFLICT (link_id) DO UPDATE SET
				url = excluded.url, title = excluded.title, content = excluded.content,
				indexed_at = excluded.indexed_at, indexed = true`,
			doc.LinkID, url, title, content, doc.IndexedAt, doc.PageRank)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: index %s: %w", doc.LinkID, err)
	}
	return nil
}

// UpdateScore sets the document's PageRank, or records it for a document
// not indexed yet; see textindex.Indexer.
func (i *Index) UpdateScore(linkID uuid.UUID, score float64) error {
	if linkID == uuid.Nil {
		return fmt.Errorf("postgres: update score: %w", textindex.ErrMissingLinkID)
	}
	if math.IsNaN(score) || math.IsInf(score, 0) {
		return fmt.Errorf("postgres: update score of %s: %w", linkID, textindex.ErrInvalidScore)
	}
	err := withRetry(context.Background(), func(ctx context.Context) error {
		_, err := i.pool.Exec(ctx, `
			INSERT INTO textindex_documents (link_id, page_rank) VALUES ($1, $2)
			ON CONFLICT (link_id) DO UPDATE SET page_rank = excluded.page_rank`, linkID, score)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: update score of %s: %w", linkID, err)
	}
	return nil
}

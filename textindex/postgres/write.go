package postgres

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

// Index inserts or replaces doc; see textindex.Indexer. It is a batch of
// one (IndexBatch), a single upsert statement, so no transaction is needed.
func (i *Index) Index(doc *textindex.Document) error {
	if doc == nil || doc.LinkID == uuid.Nil {
		return fmt.Errorf("postgres: index: %w", textindex.ErrMissingLinkID)
	}
	return i.IndexBatch([]*textindex.Document{doc})
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

// UpdateScores sets the PageRank of many documents at once, as UpdateScore
// does for each (ids[i] gets scores[i]), in one statement: all or nothing.
func (i *Index) UpdateScores(ids []uuid.UUID, scores []float64) error {
	if len(ids) != len(scores) {
		return fmt.Errorf("postgres: update scores: %d IDs for %d scores", len(ids), len(scores))
	}
	raw := make([][16]byte, len(ids))
	for n, id := range ids {
		if id == uuid.Nil {
			return fmt.Errorf("postgres: update scores: %w", textindex.ErrMissingLinkID)
		}
		if math.IsNaN(scores[n]) || math.IsInf(scores[n], 0) {
			return fmt.Errorf("postgres: update scores: %s: %w", id, textindex.ErrInvalidScore)
		}
		raw[n] = id
	}
	if len(ids) == 0 {
		return nil
	}
	err := withRetry(context.Background(), func(ctx context.Context) error {
		// De-duplicated by the last score given, as one statement may not
		// update a row twice.
		_, err := i.pool.Exec(ctx, `
			INSERT INTO textindex_documents (link_id, page_rank)
			SELECT DISTINCT ON (link_id) link_id, page_rank
			FROM unnest($1::UUID[], $2::DOUBLE PRECISION[]) WITH ORDINALITY AS s (link_id, page_rank, n)
			ORDER BY link_id, n DESC
			ON CONFLICT (link_id) DO UPDATE SET page_rank = excluded.page_rank`, raw, scores)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: update %d scores: %w", len(ids), err)
	}
	return nil
}

// urlTerms returns the URL field of a document at url (textindex.URLTerms),
// as the url_terms column holds it.
func urlTerms(url string) string { return strings.Join(textindex.URLTerms(url), " ") }

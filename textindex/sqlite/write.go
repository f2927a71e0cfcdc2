package sqlite

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

// Index inserts or replaces doc; see textindex.Indexer. Calls from
// several goroutines are committed together in one transaction, which is
// how indexing throughput scales; each call still returns only once its
// document is committed.
func (i *Index) Index(doc *textindex.Document) error {
	if doc == nil || doc.LinkID == uuid.Nil {
		return fmt.Errorf("sqlite: index: %w", textindex.ErrMissingLinkID)
	}
	if math.IsNaN(doc.PageRank) || math.IsInf(doc.PageRank, 0) {
		return fmt.Errorf("sqlite: index %s: %w", doc.LinkID, textindex.ErrInvalidScore)
	}
	err := i.w.do(indexOp(doc))
	if err != nil {
		return fmt.Errorf("sqlite: index %s: %w", doc.LinkID, err)
	}
	return nil
}

// UpdateScore sets the document's PageRank, or records it for a document
// not indexed yet; see textindex.Indexer.
func (i *Index) UpdateScore(linkID uuid.UUID, score float64) error {
	if linkID == uuid.Nil {
		return fmt.Errorf("sqlite: update score: %w", textindex.ErrMissingLinkID)
	}
	if math.IsNaN(score) || math.IsInf(score, 0) {
		return fmt.Errorf("sqlite: update score of %s: %w", linkID, textindex.ErrInvalidScore)
	}
	err := i.w.do(func(ctx context.Context, w *writer, _ *textBatch) error {
		return w.exec(ctx, stmtSetScore, linkID[:], score)
	})
	if err != nil {
		return fmt.Errorf("sqlite: update score of %s: %w", linkID, err)
	}
	return nil
}

// indexOp returns the write that stores doc, for the writer to run in a
// group.
func indexOp(doc *textindex.Document) func(ctx context.Context, w *writer, text *textBatch) error {
	body := doc.Title + "\n" + doc.Content
	indexedAt := textindex.Timestamp(doc.IndexedAt).Format(time.RFC3339Nano)
	return func(ctx context.Context, w *writer, text *textBatch) error {
		// The no-op update makes RETURNING yield the id of an existing
		// row (a replaced document or a score placeholder) whose
		// page_rank is kept.
		var id int64
		if err := w.stmts[stmtUpsertDoc].QueryRowContext(ctx, doc.LinkID[:], doc.PageRank).Scan(&id); err != nil {
			return fmt.Errorf("upsert docs row: %w", err)
		}
		// Only a replaced document has text to remove: FTS5 records a
		// delete as a tombstone even for a rowid it never saw, which
		// would cost every new document index space and merge work.
		res, err := w.stmts[stmtDropBody].ExecContext(ctx, id)
		if err != nil {
			return fmt.Errorf("remove old document: %w", err)
		}
		existed, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("remove old document: %w", err)
		}
		if err := w.exec(ctx, stmtPutBody, id, doc.URL, doc.Title, doc.Content, indexedAt); err != nil {
			return fmt.Errorf("store document: %w", err)
		}
		text.replace(id, existed > 0, body)
		return nil
	}
}

// UpdateScores sets the PageRank of many documents at once, as UpdateScore
// does for each (ids[i] gets scores[i]), in one transaction: all or
// nothing. A ranking job writes every score of the graph, and one commit
// for all of them costs far less than one per group of callers.
func (i *Index) UpdateScores(ids []uuid.UUID, scores []float64) error {
	if err := checkScores(ids, scores); err != nil {
		return fmt.Errorf("sqlite: update scores: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	err := i.w.do(func(ctx context.Context, w *writer, _ *textBatch) error {
		for n, id := range ids {
			if err := w.exec(ctx, stmtSetScore, id[:], scores[n]); err != nil {
				return fmt.Errorf("%s: %w", id, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: update %d scores: %w", len(ids), err)
	}
	return nil
}

// checkScores validates the arguments of UpdateScores.
func checkScores(ids []uuid.UUID, scores []float64) error {
	if len(ids) != len(scores) {
		return fmt.Errorf("%d IDs for %d scores", len(ids), len(scores))
	}
	for n, id := range ids {
		if id == uuid.Nil {
			return textindex.ErrMissingLinkID
		}
		if math.IsNaN(scores[n]) || math.IsInf(scores[n], 0) {
			return fmt.Errorf("%s: %w", id, textindex.ErrInvalidScore)
		}
	}
	return nil
}

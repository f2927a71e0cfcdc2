package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/anchors"
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
	err := i.w.do(indexOp(doc, docFields(doc), anchors.Encode(doc.Links)))
	if err != nil {
		return fmt.Errorf("sqlite: index %s: %w", doc.LinkID, i.storeErr(err))
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
		return fmt.Errorf("sqlite: update score of %s: %w", linkID, i.storeErr(err))
	}
	return nil
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
	// A multi-row upsert per maxParams/2 scores: a statement a score cost
	// a ranking of the rust documentation's 29,781 pages about 0.15 s.
	args := make([]any, 0, 2*len(ids))
	for n, id := range ids {
		args = append(args, id[:], scores[n])
	}
	err := i.w.do(func(ctx context.Context, w *writer, _ *textBatch) error {
		return execRows(ctx, w, insertScoresPrefix, setScoresSuffix, 2, args)
	})
	if err != nil {
		return fmt.Errorf("sqlite: update %d scores: %w", len(ids), i.storeErr(err))
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

// indexOp returns the write that stores doc, for the writer to run in a
// group.
//
// A document with a ContentHash takes part in its duplicate group (see the
// textindex package documentation): its bodies row records the hash and
// whether it is the group's canonical, and only the canonical has text in
// docs_fts. The group's state is kept at write time, in the same
// transaction, so that searching and counting stay on docs_fts alone. The
// lookup of the group's canonical is folded into the insert of the row
// (stmtPutBody), so a write makes no more statements than before unless
// the canonical changes hands; a re-crawl of an unchanged page (same hash,
// same URL) does no work in docs_fts, since its text is the same.
// fields are doc's docs_fts columns (docFields) and links its Links as
// package anchors encodes them (nil for none: NULL), computed by the caller
// rather than by the one writer goroutine, since stemming takes a while.
func indexOp(doc *textindex.Document, fields ftsFields, links []byte) func(ctx context.Context, w *writer, text *textBatch) error {
	indexedAt := textindex.Timestamp(doc.IndexedAt).Format(time.RFC3339Nano)
	var hash any // NULL: in no group
	if doc.ContentHash != "" {
		hash = doc.ContentHash
	}
	return func(ctx context.Context, w *writer, text *textBatch) error {
		// The no-op update makes RETURNING yield the id of an existing
		// row (a replaced document or a score placeholder) whose
		// page_rank is kept.
		var id int64
		if err := w.stmts[stmtUpsertDoc].QueryRowContext(ctx, doc.LinkID[:], doc.PageRank).Scan(&id); err != nil {
			return fmt.Errorf("upsert docs row: %w", err)
		}
		// The old row, if any: what group it was in and whether it had
		// text in docs_fts. Only a replaced document has text to remove:
		// FTS5 records a delete as a tombstone even for a rowid it never
		// saw, which would cost every new document index space and merge
		// work.
		var (
			hadText, same bool
			leftGroup     sql.NullString
		)
		err := w.stmts[stmtDropBody].QueryRowContext(ctx, id, hash, doc.Redirect, doc.URL, doc.Language, doc.Headings).Scan(&hadText, &same, &leftGroup)
		switch {
		case errors.Is(err, sql.ErrNoRows): // a new document
		case err != nil:
			return fmt.Errorf("remove old document: %w", err)
		}
		// Leaving its group (or a place in it): the next member takes
		// over if this document was the canonical.
		if leftGroup.Valid {
			if err := promoteNext(ctx, w, text, leftGroup.String); err != nil {
				return err
			}
		}
		var (
			canon     bool
			displaced sql.NullInt64
		)
		err = w.stmts[stmtPutBody].QueryRowContext(ctx, id, doc.URL, doc.Title, doc.Content, indexedAt, hash, doc.Redirect, doc.Language, doc.Headings).
			Scan(&canon, &displaced)
		if err != nil {
			return fmt.Errorf("store document: %w", err)
		}
		if err := w.exec(ctx, stmtPutLinks, id, doc.URL, doc.Language, links); err != nil {
			return fmt.Errorf("store links: %w", err)
		}
		if same {
			// The same place in the same group, and the same text: the
			// full-text index has nothing to do.
			return nil
		}
		if canon && displaced.Valid {
			if err := w.exec(ctx, stmtSetCanon, false, displaced.Int64); err != nil {
				return fmt.Errorf("demote the canonical of %s: %w", doc.ContentHash, err)
			}
			text.drop(displaced.Int64, true)
		}
		if canon {
			text.set(id, hadText, fields)
		} else if hadText {
			text.drop(id, hadText)
		}
		return nil
	}
}

// promoteNext makes the first remaining member of group hash its
// canonical, now that the canonical left it (its row is already gone).
func promoteNext(ctx context.Context, w *writer, text *textBatch, hash string) error {
	var (
		next                                int64
		url, title, headings, content, lang string
	)
	err := w.stmts[stmtNextInGroup].QueryRowContext(ctx, hash).Scan(&next, &url, &title, &headings, &content, &lang)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // the group is empty
	}
	if err != nil {
		return fmt.Errorf("find the next canonical of %s: %w", hash, err)
	}
	if err := w.exec(ctx, stmtSetCanon, true, next); err != nil {
		return fmt.Errorf("promote the next canonical of %s: %w", hash, err)
	}
	text.set(next, false, fieldsOf(url, title, headings, content, lang))
	return nil
}

package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

// Index inserts or replaces doc; see textindex.Indexer.
func (i *Index) Index(doc *textindex.Document) error {
	if doc == nil || doc.LinkID == uuid.Nil {
		return fmt.Errorf("sqlite: index: %w", textindex.ErrMissingLinkID)
	}
	if math.IsNaN(doc.PageRank) || math.IsInf(doc.PageRank, 0) {
		return fmt.Errorf("sqlite: index %s: %w", doc.LinkID, textindex.ErrInvalidScore)
	}
	err := i.write(func(ctx context.Context, tx *sql.Tx) error {
		// The no-op update makes RETURNING yield the id of an existing
		// row (a replaced document or a score placeholder) whose
		// page_rank is kept.
		var id int64
		err := tx.QueryRowContext(ctx, `
			INSERT INTO docs (link_id, page_rank) VALUES (?, ?)
			ON CONFLICT (link_id) DO UPDATE SET page_rank = page_rank
			RETURNING id`, doc.LinkID[:], doc.PageRank).Scan(&id)
		if err != nil {
			return fmt.Errorf("upsert docs row: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM docs_fts WHERE rowid = ?`, id); err != nil {
			return fmt.Errorf("remove old text: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO docs_fts (rowid, body) VALUES (?, ?)`, id, doc.Title+"\n"+doc.Content); err != nil {
			return fmt.Errorf("index text: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `
			INSERT OR REPLACE INTO bodies (id, url, title, content, indexed_at) VALUES (?, ?, ?, ?, ?)`,
			id, doc.URL, doc.Title, doc.Content, doc.IndexedAt.UTC().Format(time.RFC3339Nano)); err != nil {
			return fmt.Errorf("store document: %w", err)
		}
		return nil
	})
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
	err := i.write(func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO docs (link_id, page_rank) VALUES (?, ?)
			ON CONFLICT (link_id) DO UPDATE SET page_rank = excluded.page_rank`, linkID[:], score)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: update score of %s: %w", linkID, err)
	}
	return nil
}

// write runs fn in a write transaction. The DSN's _txlock=immediate takes
// the write lock at BEGIN, so two processes cannot deadlock upgrading read
// locks.
func (i *Index) write(fn func(ctx context.Context, tx *sql.Tx) error) error {
	ctx := context.Background()
	i.writeMu.Lock()
	defer i.writeMu.Unlock()
	tx, err := i.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", closedErr(err))
	}
	if err := fn(ctx, tx); err != nil {
		_ = tx.Rollback() // the error that made us roll back is the one to report
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

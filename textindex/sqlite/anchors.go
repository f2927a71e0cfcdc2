package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/linksrus/linksrus/textindex/internal/anchors"
	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// UpdateAnchors recomputes every document's anchor text from the links
// stored with the documents, and replaces the anchors and anchors_fts
// tables with it in one transaction; see textindex.Indexer. The links are
// read first, from a snapshot: a document indexed meanwhile gets its
// anchor text at the next call.
func (i *Index) UpdateAnchors(ctx context.Context) error {
	rows, err := i.collectAnchors(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: update anchors: %w", i.storeErr(err))
	}
	texts := make([]any, 0, 2*len(rows))
	fts := make([]any, 0, 3*len(rows))
	for _, r := range rows {
		joined := anchors.Join(r.texts)
		texts = append(texts, r.id, joined)
		fts = append(fts, r.id, exactText(joined), stemText(joined, terms.StemmerFor(r.lang)))
	}
	err = i.w.do(func(ctx context.Context, w *writer, _ *textBatch) error {
		if _, err := w.conn.ExecContext(ctx, `DELETE FROM anchors`); err != nil {
			return fmt.Errorf("clear anchors: %w", err)
		}
		if _, err := w.conn.ExecContext(ctx, `INSERT INTO anchors_fts (anchors_fts) VALUES ('delete-all')`); err != nil {
			return fmt.Errorf("clear anchors_fts: %w", err)
		}
		if err := execRows(ctx, w, `INSERT INTO anchors (id, texts) VALUES `, "", 2, texts); err != nil {
			return fmt.Errorf("store anchors: %w", err)
		}
		if err := execRows(ctx, w, `INSERT INTO anchors_fts (rowid, anchor, anchor_stems) VALUES `, "", 3, fts); err != nil {
			return fmt.Errorf("index anchors: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: update anchors of %d documents: %w", len(rows), i.storeErr(err))
	}
	return nil
}

// anchorRow is the anchor text of a canonical document (its bodies id),
// in its language.
type anchorRow struct {
	id    int64
	lang  string
	texts []string
}

// collectAnchors reads every document's links in one read transaction and
// returns the anchor text of the canonical documents that have some, by
// id. It reads no bodies row past its URL: the groups come from their
// index (bodies_group), the links and languages from doc_links.
func (i *Index) collectAnchors(ctx context.Context) ([]anchorRow, error) {
	tx, err := i.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	// The canonical of every document in a group; one in none is its own.
	canonOf := make(map[int64]int64)
	type member struct {
		id    int64
		hash  string
		canon bool
	}
	var members []member
	rows, err := tx.QueryContext(ctx, `SELECT id, content_hash, canon FROM bodies WHERE content_hash IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var m member
		if err := rows.Scan(&m.id, &m.hash, &m.canon); err != nil {
			rows.Close()
			return nil, err
		}
		members = append(members, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	byHash := make(map[string]int64)
	for _, m := range members {
		if m.canon {
			byHash[m.hash] = m.id
		}
	}
	for _, m := range members {
		if k, ok := byHash[m.hash]; ok {
			canonOf[m.id] = k
		}
	}
	key := func(id int64) int64 {
		if k, ok := canonOf[id]; ok {
			return k
		}
		return id
	}

	type doc struct {
		id, canon int64
		links     []byte
	}
	var docs []doc
	langs := make(map[int64]string)
	c := anchors.NewCollector[int64]()
	rows, err = tx.QueryContext(ctx, `SELECT b.id, b.url, coalesce(l.lang, ''), l.links FROM bodies b LEFT JOIN doc_links l ON l.id = b.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			d         doc
			url, lang string
		)
		if err := rows.Scan(&d.id, &url, &lang, &d.links); err != nil {
			return nil, err
		}
		d.canon = key(d.id)
		if d.canon == d.id {
			langs[d.id] = lang
		}
		c.Document(url, d.canon)
		if len(d.links) > 0 {
			docs = append(docs, d)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// A group's documents one after another (see Collector.Links).
	slices.SortFunc(docs, func(a, b doc) int { return cmp.Compare(a.canon, b.canon) })
	for _, d := range docs {
		if err := c.Links(d.canon, d.links); err != nil {
			return nil, fmt.Errorf("links of document %d: %w", d.id, err)
		}
	}
	var out []anchorRow
	err = c.Each(func(id int64, texts []string) error {
		if lang, ok := langs[id]; ok {
			out = append(out, anchorRow{id: id, lang: lang, texts: texts})
		}
		return nil
	})
	// In rowid order, as FTS5 takes inserts best.
	slices.SortFunc(out, func(a, b anchorRow) int { return cmp.Compare(a.id, b.id) })
	return out, err
}

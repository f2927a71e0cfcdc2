package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/linksrus/linksrus/textindex/internal/anchors"
	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// UpdateAnchors recomputes every document's anchor text from the links
// stored with the documents, and makes the anchors and anchors_fts tables
// hold it in one transaction; see textindex.Indexer. The links are read
// first, from a snapshot: a document indexed meanwhile gets its anchor
// text at the next call. Only the rows that changed are written: a
// ranking after a crawl that changed a few pages rewrites a few rows.
func (i *Index) UpdateAnchors(ctx context.Context) error {
	rows, err := i.collectAnchors(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: update anchors: %w", i.storeErr(err))
	}
	err = i.w.do(func(ctx context.Context, w *writer, _ *textBatch) error {
		type stored struct{ texts, lang string }
		had := make(map[int64]stored)
		if err := scanEach(ctx, w.conn, `SELECT id, texts, lang FROM anchors`, func(r *sql.Rows) error {
			var (
				id int64
				s  stored
			)
			if err := r.Scan(&id, &s.texts, &s.lang); err != nil {
				return err
			}
			had[id] = s
			return nil
		}); err != nil {
			return fmt.Errorf("read anchors: %w", err)
		}
		var gone []string
		texts := make([]any, 0, 3*len(rows))
		fts := make([]any, 0, 3*len(rows))
		for _, r := range rows {
			joined := anchors.Join(r.texts)
			old, ok := had[r.id]
			delete(had, r.id)
			if ok && old == (stored{joined, r.lang}) {
				continue
			}
			if ok {
				gone = append(gone, strconv.FormatInt(r.id, 10))
			}
			texts = append(texts, r.id, joined, r.lang)
			fts = append(fts, r.id, exactText(joined), stemText(joined, terms.StemmerFor(r.lang)))
		}
		for id := range had {
			gone = append(gone, strconv.FormatInt(id, 10))
		}
		if len(gone) > 0 {
			list := "[" + strings.Join(gone, ",") + "]"
			if _, err := w.conn.ExecContext(ctx, `DELETE FROM anchors WHERE id IN (SELECT value FROM json_each(?))`, list); err != nil {
				return fmt.Errorf("remove anchors: %w", err)
			}
			if _, err := w.conn.ExecContext(ctx, `DELETE FROM anchors_fts WHERE rowid IN (SELECT value FROM json_each(?))`, list); err != nil {
				return fmt.Errorf("remove anchors from anchors_fts: %w", err)
			}
		}
		if err := execRows(ctx, w, `INSERT INTO anchors (id, texts, lang) VALUES `, "", 3, texts); err != nil {
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

// scanEach runs query on q (a connection, a transaction) and calls fn for
// each row.
func scanEach(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
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
// id. It reads no bodies row (whose text it would read too): the groups
// come from their index (bodies_group), the URLs, languages and links from
// doc_links.
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
	err = scanEach(ctx, tx, `SELECT id, content_hash, canon FROM bodies WHERE content_hash IS NOT NULL`, func(r *sql.Rows) error {
		var m member
		if err := r.Scan(&m.id, &m.hash, &m.canon); err != nil {
			return err
		}
		members = append(members, m)
		return nil
	})
	if err != nil {
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

	// The URLs first: a link gives anchor text only once every
	// document it may lead to is known. Then the links, of canonical
	// documents only: a duplicate has its canonical's text, and so its
	// links, and would only count them again.
	langs := make(map[int64]string)
	c := anchors.NewCollector[int64]()
	err = scanEach(ctx, tx, `SELECT id, url, lang FROM doc_links`, func(r *sql.Rows) error {
		var (
			id        int64
			url, lang string
		)
		if err := r.Scan(&id, &url, &lang); err != nil {
			return err
		}
		k := key(id)
		if k == id {
			langs[id] = lang
		}
		c.Document(url, k)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = scanEach(ctx, tx, `SELECT id, links FROM doc_links WHERE links IS NOT NULL`, func(r *sql.Rows) error {
		var (
			id    int64
			links sql.RawBytes
		)
		if err := r.Scan(&id, &links); err != nil {
			return err
		}
		if key(id) != id {
			return nil
		}
		if err := c.Links(id, links); err != nil {
			return fmt.Errorf("links of document %d: %w", id, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
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

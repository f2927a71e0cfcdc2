package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/anchors"
	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// UpdateAnchors recomputes every document's anchor text from the links
// stored with the documents and replaces textindex_anchors with it in one
// transaction; see textindex.Indexer. The links are read first, in a
// snapshot of their own: a document indexed meanwhile gets its anchor
// text at the next call.
func (i *Index) UpdateAnchors(ctx context.Context) error {
	rows, err := i.collectAnchors(ctx)
	if err != nil {
		return fmt.Errorf("postgres: update anchors: %w", closedErr(err))
	}
	ids := make([][16]byte, len(rows))
	texts := make([]string, len(rows))
	exact, stems := make([]pgtype.TSVector, len(rows)), make([]pgtype.TSVector, len(rows))
	v := newVectors()
	for n, r := range rows {
		ids[n], texts[n] = r.id, sanitize(anchors.Join(r.texts))
		exact[n], stems[n] = v.text(texts[n], terms.StemmerFor(r.lang))
	}
	err = withRetry(ctx, func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, i.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `DELETE FROM textindex_anchors`); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `
				INSERT INTO textindex_anchors (link_id, texts, tsv, stems)
				SELECT * FROM unnest($1::UUID[], $2::TEXT[], $3::TSVECTOR[], $4::TSVECTOR[])`, ids, texts, exact, stems)
			return err
		})
	})
	if err != nil {
		return fmt.Errorf("postgres: update anchors of %d documents: %w", len(rows), closedErr(err))
	}
	i.tidyAfterAnchors(ctx)
	return nil
}

// tidyAfterAnchors leaves the tables a search reads as VACUUM and ANALYZE
// would, where searches would otherwise pay for what UpdateAnchors and
// the writes before it left, again and again until autovacuum comes (if
// it runs at all: it may be off): the anchor texts it replaced, dead rows
// that a search's scan of the anchor texts reads through (100k
// benchmark: p99 800 ms after a few updates, 290 vacuumed); the entries
// waiting in the pending lists of the GIN indexes, which every search
// reads whole, up to 4 MB per index (median 18.7 ms with the lists full,
// 12.3 merged); and the documents' statistics. VACUUM (ANALYZE) of the
// anchor texts merges their indexes' lists and tells the planner how many
// there are; the documents' lists are merged alone (vacuuming their table
// would read all of it), and ANALYZE reads a sample of its rows (a few
// seconds for a million documents). A planner that knows nothing of the
// documents guesses that a word is in a few hundred of them: it hashed
// the hits of two words in 998,071 of 1,000,000 documents, in one
// process and in 512 batches written to disk, and took 27 s where it
// takes 2 s with statistics (the slowest of the 1M load's 200 searches:
// 27 s -> 6 s).
// A failure is left to autovacuum: the anchor text is committed, and
// all three need the tables' owner, which a role that only writes may
// not be.
func (i *Index) tidyAfterAnchors(ctx context.Context) {
	if _, err := i.pool.Exec(ctx, `VACUUM (ANALYZE) textindex_anchors`, pgx.QueryExecModeSimpleProtocol); err != nil {
		return
	}
	for _, name := range []string{"textindex_documents_tsv_idx", "textindex_documents_stems_idx"} {
		if _, err := i.pool.Exec(ctx, `SELECT gin_clean_pending_list($1::regclass)`, name); err != nil {
			return
		}
	}
	_, _ = i.pool.Exec(ctx, `ANALYZE textindex_documents`, pgx.QueryExecModeSimpleProtocol)
}

// anchorRow is the anchor text of a canonical document, in its language.
type anchorRow struct {
	id    uuid.UUID
	lang  string
	texts []string
}

// collectAnchors reads every document's links and returns the anchor text
// of the canonical documents that have some, in LinkID order.
func (i *Index) collectAnchors(ctx context.Context) ([]anchorRow, error) {
	type doc struct {
		d     textindex.Document
		links []byte
	}
	var docs []*doc
	err := withRetry(ctx, func(ctx context.Context) error {
		docs = docs[:0]
		rows, err := i.pool.Query(ctx, `
			SELECT d.link_id, d.url, coalesce(d.content_hash, ''), d.redirect, d.lang, l.links
			FROM textindex_documents d LEFT JOIN textindex_links l ON l.link_id = d.link_id WHERE d.indexed`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			d := new(doc)
			if err := rows.Scan(&d.d.LinkID, &d.d.URL, &d.d.ContentHash, &d.d.Redirect, &d.d.Language, &d.links); err != nil {
				return err
			}
			docs = append(docs, d)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	// A group's canonical: the first of its documents in canonical order.
	canonOf := make(map[string]*doc)
	for _, d := range docs {
		if h := d.d.ContentHash; h != "" {
			if c := canonOf[h]; c == nil || textindex.CompareCanonical(&d.d, &c.d) < 0 {
				canonOf[h] = d
			}
		}
	}
	key := func(d *doc) uuid.UUID {
		if c := canonOf[d.d.ContentHash]; c != nil {
			return c.d.LinkID
		}
		return d.d.LinkID
	}
	langs := make(map[uuid.UUID]string)
	c := anchors.NewCollector[uuid.UUID]()
	for _, d := range docs {
		k := key(d)
		if k == d.d.LinkID {
			langs[k] = d.d.Language
		}
		c.Document(d.d.URL, k)
	}
	// The links of each group's canonical (see Collector.Links).
	for _, d := range docs {
		if len(d.links) == 0 || key(d) != d.d.LinkID {
			continue
		}
		if err := c.Links(d.d.LinkID, d.links); err != nil {
			return nil, fmt.Errorf("links of %s: %w", d.d.LinkID, err)
		}
	}
	var out []anchorRow
	err = c.Each(func(id uuid.UUID, texts []string) error {
		out = append(out, anchorRow{id: id, lang: langs[id], texts: texts})
		return nil
	})
	slices.SortFunc(out, func(a, b anchorRow) int { return linkgraph.CompareIDs(a.id, b.id) })
	return out, err
}

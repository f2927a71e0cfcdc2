package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/anchors"
	"github.com/linksrus/linksrus/textindex/internal/docbatch"
)

var _ textindex.BatchIndexer = (*Index)(nil)

// IndexBatch stores docs in one transaction; see textindex.BatchIndexer.
// Their text reaches FTS5 in one statement, so a batch costs one commit
// and one new index segment however many documents it holds. Concurrent
// batches (and Index calls) are committed together as Index describes.
// A batch that fails is rolled back as a whole.
//
// The documents that change no duplicate group but their own, the common
// case of a crawl (new documents whose content is found nowhere else), are
// written with a few statements for the whole batch (see splitAlone); the
// others go through the same statements as Index, one document at a time.
func (i *Index) IndexBatch(docs []*textindex.Document) error {
	docs, err := docbatch.Prepare(docs)
	if err != nil {
		return fmt.Errorf("sqlite: index batch: %w", err)
	}
	if len(docs) == 0 {
		return nil
	}
	// The columns are computed here, not by the one writer goroutine.
	fields := make(map[*textindex.Document]ftsFields, len(docs))
	links := make(map[*textindex.Document][]byte, len(docs))
	for _, d := range docs {
		fields[d], links[d] = docFields(d), anchors.Encode(d.Links)
	}
	err = i.w.do(func(ctx context.Context, w *writer, text *textBatch) error {
		alone, others, err := splitAlone(ctx, w, docs)
		if err != nil {
			return err
		}
		if err := insertAlone(ctx, w, text, alone, fields, links); err != nil {
			return err
		}
		for _, d := range others {
			if err := indexOp(d, fields[d], links[d])(ctx, w, text); err != nil {
				return fmt.Errorf("%s: %w", d.LinkID, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: index batch of %d: %w", len(docs), i.storeErr(err))
	}
	return nil
}

// aloneDoc is a document that can be stored without looking at any other:
// it has no stored text to replace, and no other document, stored or in
// its batch, shares its content hash, so it is its group's canonical and
// displaces no one.
type aloneDoc struct {
	doc *textindex.Document
	id  int64 // its docs row's, or 0 for a new one
}

// splitAlone splits docs into those alone (see aloneDoc) and the others,
// with two queries for the whole batch: which of them have a docs row
// (with a stored document, or only a score recorded ahead of it), and
// which of their content hashes any stored document has.
func splitAlone(ctx context.Context, w *writer, docs []*textindex.Document) ([]aloneDoc, []*textindex.Document, error) {
	ids := make([]string, len(docs))
	var hashes []string
	inBatch := make(map[string]int)
	for n, d := range docs {
		ids[n] = hex.EncodeToString(d.LinkID[:])
		if d.ContentHash != "" {
			if inBatch[d.ContentHash]++; inBatch[d.ContentHash] == 1 {
				hashes = append(hashes, d.ContentHash)
			}
		}
	}
	type row struct {
		id     int64
		stored bool
	}
	rows := make(map[uuid.UUID]row)
	err := queryJSON(ctx, w, stmtFindDocs, ids, func(r *sql.Rows) error {
		var (
			linkID []byte
			x      row
		)
		if err := r.Scan(&linkID, &x.id, &x.stored); err != nil {
			return err
		}
		id, err := uuid.FromBytes(linkID)
		if err != nil {
			return fmt.Errorf("docs row %d: link ID: %w", x.id, err)
		}
		rows[id] = x
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("find stored documents: %w", err)
	}
	stored := make(map[string]bool)
	if len(hashes) > 0 {
		err := queryJSON(ctx, w, stmtFindHashes, hashes, func(r *sql.Rows) error {
			var h string
			if err := r.Scan(&h); err != nil {
				return err
			}
			stored[h] = true
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("find stored content hashes: %w", err)
		}
	}
	var (
		alone  []aloneDoc
		others []*textindex.Document
	)
	for _, d := range docs {
		r := rows[d.LinkID]
		shared := d.ContentHash != "" && (stored[d.ContentHash] || inBatch[d.ContentHash] > 1)
		if r.stored || shared {
			others = append(others, d)
			continue
		}
		alone = append(alone, aloneDoc{doc: d, id: r.id})
	}
	return alone, others, nil
}

// queryJSON runs the prepared query q with values as its one parameter, a
// JSON array, and calls scan for each row.
func queryJSON(ctx context.Context, w *writer, q string, values []string, scan func(*sql.Rows) error) error {
	arg, err := json.Marshal(values)
	if err != nil {
		return err
	}
	rows, err := w.stmts[q].QueryContext(ctx, string(arg))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// insertAlone stores the documents alone with one multi-row insert into
// docs for the new ones (their rowids numbered on from the largest, as
// SQLite would) and one into bodies, each their group's canonical, with
// docs_fts columns fields and encoded links.
func insertAlone(ctx context.Context, w *writer, text *textBatch, alone []aloneDoc, fields map[*textindex.Document]ftsFields, links map[*textindex.Document][]byte) error {
	if len(alone) == 0 {
		return nil
	}
	var fresh int
	for _, a := range alone {
		if a.id == 0 {
			fresh++
		}
	}
	if fresh > 0 {
		var last int64
		if err := w.stmts[stmtLastDocID].QueryRowContext(ctx).Scan(&last); err != nil {
			return fmt.Errorf("number new documents: %w", err)
		}
		args := make([]any, 0, 3*fresh)
		for n := range alone {
			if alone[n].id == 0 {
				last++
				alone[n].id = last
				args = append(args, last, alone[n].doc.LinkID[:], alone[n].doc.PageRank)
			}
		}
		if err := execRows(ctx, w, insertDocsPrefix, "", 3, args); err != nil {
			return fmt.Errorf("insert docs rows: %w", err)
		}
	}
	args := make([]any, 0, 9*len(alone))
	linkArgs := make([]any, 0, 4*len(alone))
	for _, a := range alone {
		d := a.doc
		var hash any // NULL: in no group
		if d.ContentHash != "" {
			hash = d.ContentHash
		}
		args = append(args, a.id, d.URL, d.Title, d.Content, textindex.Timestamp(d.IndexedAt).Format(time.RFC3339Nano), hash, d.Redirect, d.Language, d.Headings)
		linkArgs = append(linkArgs, a.id, d.URL, d.Language, links[d])
		text.set(a.id, false, fields[d])
	}
	if err := execRows(ctx, w, insertBodiesPrefix, "", 9, args); err != nil {
		return fmt.Errorf("store documents: %w", err)
	}
	// Alone, a document has no row here yet either.
	if err := execRows(ctx, w, insertLinksPrefix, "", 4, linkArgs); err != nil {
		return fmt.Errorf("store links: %w", err)
	}
	return nil
}

const (
	insertScoresPrefix = `INSERT INTO docs (link_id, page_rank) VALUES `
	setScoresSuffix    = ` ON CONFLICT (link_id) DO UPDATE SET page_rank = excluded.page_rank`
	insertDocsPrefix   = `INSERT INTO docs (id, link_id, page_rank) VALUES `
	insertBodiesPrefix = `INSERT INTO bodies (id, url, title, content, indexed_at, content_hash, redirect, lang, headings) VALUES `
	insertLinksPrefix  = `INSERT INTO doc_links (id, url, lang, links) VALUES `
)

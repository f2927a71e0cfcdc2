package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/pager"
	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// FindByID returns a copy of the document; see textindex.Indexer.
func (i *Index) FindByID(linkID uuid.UUID) (*textindex.Document, error) {
	row := i.db.QueryRowContext(context.Background(), `
		SELECT d.link_id, d.page_rank, b.url, b.title, b.content, b.indexed_at
		FROM docs d JOIN bodies b ON b.id = d.id
		WHERE d.link_id = ?`, linkID[:])
	doc, err := scanDoc(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: find %s: %w", linkID, textindex.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: find %s: %w", linkID, closedErr(err))
	}
	return doc, nil
}

// scanDoc reads the columns link_id, page_rank, url, title, content,
// indexed_at.
func scanDoc(row interface{ Scan(...any) error }, extra ...any) (*textindex.Document, error) {
	var (
		doc       textindex.Document
		linkID    []byte
		indexedAt string
	)
	if err := row.Scan(append([]any{&linkID, &doc.PageRank, &doc.URL, &doc.Title, &doc.Content, &indexedAt}, extra...)...); err != nil {
		return nil, err
	}
	id, err := uuid.FromBytes(linkID)
	if err != nil {
		return nil, fmt.Errorf("corrupt link_id: %w", err)
	}
	doc.LinkID = id
	if doc.IndexedAt, err = time.Parse(time.RFC3339Nano, indexedAt); err != nil {
		return nil, fmt.Errorf("corrupt indexed_at: %w", err)
	}
	return &doc, nil
}

// matchExpr turns a query into an FTS5 MATCH expression. Every term is a
// double-quoted string, which FTS5 never reads as an operator, column
// filter or prefix; terms hold no quotes, but they are doubled anyway so the
// quoting does not rest on terms.Split alone. It returns "" when the
// expression has no terms.
func matchExpr(q textindex.Query) string {
	words, _ := terms.Query(q.Expression, q.Type == textindex.QueryTypePhrase)
	if len(words) == 0 {
		return ""
	}
	for n, w := range words {
		words[n] = strings.ReplaceAll(w, `"`, `""`)
	}
	if q.Type == textindex.QueryTypePhrase {
		return `"` + strings.Join(words, " ") + `"`
	}
	return `"` + strings.Join(words, `" "`) + `"` // juxtaposition is AND
}

// Search runs q; see textindex.Indexer and textindex.Query.
func (i *Index) Search(q textindex.Query) (textindex.Iterator, error) {
	return i.SearchContext(context.Background(), q)
}

// SearchContext is Search ending when ctx does (textindex.ContextSearcher):
// SQLite interrupts the statement under way.
func (i *Index) SearchContext(ctx context.Context, q textindex.Query) (textindex.Iterator, error) {
	if q.Type != textindex.QueryTypeMatch && q.Type != textindex.QueryTypePhrase {
		return nil, fmt.Errorf("sqlite: search: %w: %v", textindex.ErrUnknownQueryType, q.Type)
	}
	expr := matchExpr(q)
	if expr == "" {
		return pager.New(0, 0, nil), nil
	}
	// Counting needs no ranking and no join: FTS5 answers it from the
	// inverted index alone.
	var total uint64
	err := i.db.QueryRowContext(ctx,
		`SELECT count(*) FROM docs_fts WHERE docs_fts MATCH ?`, expr).Scan(&total)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search %q: count: %w", q.Expression, closedErr(err))
	}
	return pager.New(total, q.Offset, func(offset uint64, limit int) ([]*textindex.Document, error) {
		return i.fetchPage(ctx, expr, offset, limit)
	}), nil
}

// pageQuery ranks the hits over rowids and the small docs rows, and joins
// only the requested page back to the stored text.
const pageQuery = `
	SELECT p.link_id, p.page_rank, b.url, b.title, b.content, b.indexed_at, p.rel
	FROM (
		SELECT d.id, d.link_id, d.page_rank, d.page_rank - h.r AS score, -h.r AS rel
		FROM (SELECT rowid AS id, bm25(docs_fts) AS r FROM docs_fts WHERE docs_fts MATCH ?) h
		JOIN docs d ON d.id = h.id
		ORDER BY score DESC, d.link_id
		LIMIT ? OFFSET ?
	) p
	JOIN bodies b ON b.id = p.id
	ORDER BY p.score DESC, p.link_id`

// fetchPage reads one page of a search's results.
func (i *Index) fetchPage(ctx context.Context, expr string, offset uint64, limit int) ([]*textindex.Document, error) {
	rows, err := i.db.QueryContext(ctx, pageQuery, expr, limit, int64(offset))
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: fetch results: %w", closedErr(err))
	}
	defer rows.Close()
	var docs []*textindex.Document
	for rows.Next() {
		var rel float64
		doc, err := scanDoc(rows, &rel)
		if err != nil {
			return nil, fmt.Errorf("sqlite: search: read result: %w", err)
		}
		doc.Relevance = rel
		docs = append(docs, doc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: search: fetch results: %w", closedErr(err))
	}
	return docs, nil
}

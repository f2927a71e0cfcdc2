package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/pager"
	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// sanitize makes s storable as PostgreSQL text, which must be valid UTF-8
// without NUL bytes: both become U+FFFD, which also keeps the words on
// either side apart.
func sanitize(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// FindByID returns a copy of the document; see textindex.Indexer.
func (i *Index) FindByID(linkID uuid.UUID) (*textindex.Document, error) {
	row := i.pool.QueryRow(context.Background(), `
		SELECT link_id, url, title, content, indexed_at, page_rank
		FROM textindex_documents WHERE link_id = $1 AND indexed`, linkID)
	doc, err := scanDoc(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: find %s: %w", linkID, textindex.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: find %s: %w", linkID, closedErr(err))
	}
	return doc, nil
}

// scanDoc reads link_id, url, title, content, indexed_at, page_rank.
func scanDoc(row pgx.Row, extra ...any) (*textindex.Document, error) {
	var (
		doc       textindex.Document
		indexedAt *time.Time
	)
	if err := row.Scan(append([]any{&doc.LinkID, &doc.URL, &doc.Title, &doc.Content, &indexedAt, &doc.PageRank}, extra...)...); err != nil {
		return nil, err
	}
	if indexedAt != nil {
		doc.IndexedAt = indexedAt.UTC()
	}
	return &doc, nil
}

// tsqueryFunc maps query types to the functions that turn plain text into
// a tsquery without interpreting operators in it.
var tsqueryFunc = map[textindex.QueryType]string{
	textindex.QueryTypeMatch:  "plainto_tsquery",
	textindex.QueryTypePhrase: "phraseto_tsquery",
}

// Search runs q; see textindex.Indexer and textindex.Query.
//
// The user's text never reaches to_tsquery: it is split into terms here and
// the terms, joined by spaces, are handed to plainto_tsquery or
// phraseto_tsquery as a bound parameter, which read their input as words
// only.
func (i *Index) Search(q textindex.Query) (textindex.Iterator, error) {
	return i.SearchContext(context.Background(), q)
}

// SearchContext is Search ending when ctx does (textindex.ContextSearcher):
// the server cancels the statement under way.
func (i *Index) SearchContext(ctx context.Context, q textindex.Query) (textindex.Iterator, error) {
	fn, ok := tsqueryFunc[q.Type]
	if !ok {
		return nil, fmt.Errorf("postgres: search: %w: %v", textindex.ErrUnknownQueryType, q.Type)
	}
	words, _ := terms.Query(q.Expression, q.Type == textindex.QueryTypePhrase)
	if len(words) == 0 {
		return pager.New(0, 0, nil), nil
	}
	text := strings.Join(words, " ")
	var total int64
	err := i.pool.QueryRow(ctx, fmt.Sprintf(`
		SELECT count(*) FROM textindex_documents
		WHERE indexed AND tsv @@ %s('simple', $1)`, fn), text).Scan(&total)
	if err != nil {
		return nil, fmt.Errorf("postgres: search %q: count: %w", q.Expression, closedErr(err))
	}
	page := fmt.Sprintf(pageSQL, fn)
	return pager.New(uint64(total), q.Offset, func(offset uint64, limit int) ([]*textindex.Document, error) {
		return i.fetchPage(ctx, page, text, offset, limit)
	}), nil
}

// pageSQL ranks the hits on key and score alone and joins only the page
// being returned back to the stored text. %s is the tsquery function.
const pageSQL = `
	WITH hits AS (
		SELECT d.link_id, ts_rank(d.tsv, q.q) + d.page_rank AS score, ts_rank(d.tsv, q.q) AS rel
		FROM textindex_documents d, (SELECT %s('simple', $1) AS q) q
		WHERE d.indexed AND d.tsv @@ q.q
		ORDER BY score DESC, d.link_id
		LIMIT $2 OFFSET $3
	)
	SELECT d.link_id, d.url, d.title, d.content, d.indexed_at, d.page_rank, hits.rel::float8
	FROM hits JOIN textindex_documents d ON d.link_id = hits.link_id
	ORDER BY hits.score DESC, hits.link_id`

// fetchPage reads one page of a search's results.
func (i *Index) fetchPage(ctx context.Context, page, text string, offset uint64, limit int) ([]*textindex.Document, error) {
	rows, err := i.pool.Query(ctx, page, text, limit, int64(offset))
	if err != nil {
		return nil, fmt.Errorf("postgres: search: fetch results: %w", closedErr(err))
	}
	defer rows.Close()
	var docs []*textindex.Document
	for rows.Next() {
		var rel float64
		doc, err := scanDoc(rows, &rel)
		if err != nil {
			return nil, fmt.Errorf("postgres: search: read result: %w", err)
		}
		doc.Relevance = rel
		docs = append(docs, doc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: search: fetch results: %w", closedErr(err))
	}
	return docs, nil
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/linksrus/linksrus/textindex"
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
func scanDoc(row pgx.Row) (*textindex.Document, error) {
	var (
		doc       textindex.Document
		indexedAt *time.Time
	)
	if err := row.Scan(&doc.LinkID, &doc.URL, &doc.Title, &doc.Content, &indexedAt, &doc.PageRank); err != nil {
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
	fn, ok := tsqueryFunc[q.Type]
	if !ok {
		return nil, fmt.Errorf("postgres: search: %w: %v", textindex.ErrUnknownQueryType, q.Type)
	}
	words := terms.Split(q.Expression)
	it := &iterator{pool: i.pool, offset: q.Offset, size: firstBatch, text: strings.Join(words, " ")}
	if len(words) == 0 {
		it.done = true
		return it, nil
	}
	it.pageSQL = fmt.Sprintf(pageSQL, fn)
	var total int64
	err := i.pool.QueryRow(context.Background(), fmt.Sprintf(`
		SELECT count(*) FROM textindex_documents
		WHERE indexed AND tsv @@ %s('simple', $1)`, fn), it.text).Scan(&total)
	if err != nil {
		return nil, fmt.Errorf("postgres: search %q: count: %w", q.Expression, closedErr(err))
	}
	it.total = uint64(total)
	if q.Offset >= it.total || q.Offset > math.MaxInt64 {
		it.done = true
	}
	return it, nil
}

// pageSQL ranks the hits on key and score alone and joins only the page
// being returned back to the stored text. %s is the tsquery function.
const pageSQL = `
	WITH hits AS (
		SELECT d.link_id, ts_rank(d.tsv, q.q) + d.page_rank AS score
		FROM textindex_documents d, (SELECT %s('simple', $1) AS q) q
		WHERE d.indexed AND d.tsv @@ q.q
		ORDER BY score DESC, d.link_id
		LIMIT $2 OFFSET $3
	)
	SELECT d.link_id, d.url, d.title, d.content, d.indexed_at, d.page_rank
	FROM hits JOIN textindex_documents d ON d.link_id = hits.link_id
	ORDER BY hits.score DESC, hits.link_id`

// An iterator's first fetch reads firstBatch results; later ones double in
// size up to maxBatch, because every fetch ranks all hits again.
const (
	firstBatch = 64
	maxBatch   = 4096
)

// iterator fetches results in batches, each its own statement, so it holds
// no connection between calls; a document changed while paging may move
// between batches.
type iterator struct {
	pool    *pgxpool.Pool
	pageSQL string
	text    string
	offset  uint64
	total   uint64

	batch []*textindex.Document
	size  int // rows the next fetch asks for
	cur   *textindex.Document
	done  bool
	err   error
}

func (it *iterator) Next() bool {
	if it.err != nil {
		return false
	}
	if len(it.batch) == 0 && !it.done {
		it.fetch()
	}
	if len(it.batch) == 0 {
		it.cur = nil
		return false
	}
	it.cur, it.batch = it.batch[0], it.batch[1:]
	return true
}

func (it *iterator) fetch() {
	rows, err := it.pool.Query(context.Background(), it.pageSQL, it.text, it.size, int64(it.offset))
	if err != nil {
		it.err = fmt.Errorf("postgres: search: fetch results: %w", closedErr(err))
		return
	}
	defer rows.Close()
	for rows.Next() {
		doc, err := scanDoc(rows)
		if err != nil {
			it.err = fmt.Errorf("postgres: search: read result: %w", err)
			it.batch = nil
			return
		}
		it.batch = append(it.batch, doc)
	}
	if err := rows.Err(); err != nil {
		it.err = fmt.Errorf("postgres: search: fetch results: %w", closedErr(err))
		it.batch = nil
		return
	}
	it.offset += uint64(len(it.batch))
	if len(it.batch) < it.size || it.offset >= it.total {
		it.done = true
	}
	it.size = min(2*it.size, maxBatch)
}

func (it *iterator) Document() *textindex.Document {
	if it.cur == nil {
		return nil
	}
	d := *it.cur
	return &d
}

func (it *iterator) Error() error       { return it.err }
func (it *iterator) TotalCount() uint64 { return it.total }

func (it *iterator) Close() error {
	it.batch, it.cur, it.done = nil, nil, true
	return nil
}

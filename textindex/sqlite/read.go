package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/anchors"
	"github.com/linksrus/linksrus/textindex/internal/pager"
	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// FindByID returns a copy of the document; see textindex.Indexer.
func (i *Index) FindByID(linkID uuid.UUID) (*textindex.Document, error) {
	ctx := context.Background()
	var canon bool
	var (
		links   []byte
		anchorT sql.NullString
	)
	row := i.db.QueryRowContext(ctx, `
		SELECT d.link_id, d.page_rank, b.url, b.title, b.headings, b.content, b.indexed_at, b.content_hash, b.redirect, b.lang, b.canon, l.links, a.texts
		FROM docs d JOIN bodies b ON b.id = d.id LEFT JOIN doc_links l ON l.id = d.id LEFT JOIN anchors a ON a.id = d.id AND b.canon
		WHERE d.link_id = ?`, linkID[:])
	doc, err := scanDoc(row, &canon, &links, &anchorT)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: find %s: %w", linkID, textindex.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: find %s: %w", linkID, i.storeErr(err))
	}
	if doc.Links, err = anchors.Links(links); err != nil {
		return nil, fmt.Errorf("sqlite: find %s: %w: %w", linkID, err, textindex.ErrCorrupt)
	}
	doc.Anchors = anchors.Split(anchorT.String)
	switch {
	case doc.ContentHash == "":
	case canon:
		err = i.alsoAt(ctx, []*textindex.Document{doc})
	default:
		var id []byte
		err = i.db.QueryRowContext(ctx, `
			SELECT d.link_id FROM bodies b JOIN docs d ON d.id = b.id
			WHERE b.content_hash = ? AND b.canon`, doc.ContentHash).Scan(&id)
		if err == nil {
			doc.DuplicateOf, err = uuid.FromBytes(id)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: find %s: duplicates: %w", linkID, i.storeErr(err))
	}
	return doc, nil
}

// alsoAt fills in the AlsoAt of docs, canonical documents, with one query.
func (i *Index) alsoAt(ctx context.Context, docs []*textindex.Document) error {
	byHash := make(map[string]*textindex.Document)
	var hashes []string
	for _, d := range docs {
		if d.ContentHash != "" {
			byHash[d.ContentHash] = d
			hashes = append(hashes, d.ContentHash)
		}
	}
	if len(hashes) == 0 {
		return nil
	}
	list, err := json.Marshal(hashes)
	if err != nil {
		return fmt.Errorf("encode hashes: %w", err)
	}
	rows, err := i.db.QueryContext(ctx, alsoAtQuery, string(list), textindex.MaxAlsoAt)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var hash, url string
		if err := rows.Scan(&hash, &url); err != nil {
			return err
		}
		if d := byHash[hash]; d != nil {
			d.AlsoAt = append(d.AlsoAt, url)
		}
	}
	return rows.Err()
}

// alsoAtQuery lists the aliases of groups, the first MaxAlsoAt of each in
// canonical order.
const alsoAtQuery = `
	SELECT content_hash, url FROM (
		SELECT content_hash, url, row_number() OVER (
			PARTITION BY content_hash ORDER BY redirect, length(CAST(url AS BLOB)), url) AS n
		FROM bodies
		WHERE content_hash IN (SELECT value FROM json_each(?)) AND NOT canon
	) WHERE n <= ? ORDER BY content_hash, n`

// scanDoc reads the columns link_id, page_rank, url, title, headings,
// content, indexed_at, content_hash, redirect, lang.
func scanDoc(row interface{ Scan(...any) error }, extra ...any) (*textindex.Document, error) {
	var (
		doc       textindex.Document
		linkID    []byte
		indexedAt string
		hash      sql.NullString
	)
	if err := row.Scan(append([]any{&linkID, &doc.PageRank, &doc.URL, &doc.Title, &doc.Headings, &doc.Content, &indexedAt, &hash, &doc.Redirect, &doc.Language}, extra...)...); err != nil {
		return nil, err
	}
	doc.ContentHash = hash.String
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

// matchExpr turns a query into an FTS5 MATCH expression and the sites its
// results must be on. Every term is a double-quoted string, which FTS5
// never reads as an operator, column filter or prefix; terms hold no
// quotes, but they are doubled anyway so the expression stays well-formed
// whatever they hold. Each word or phrase is matched as written or as its
// stems (terms.Unit), which only the stem columns hold. The expression is
// "" when the query requires no term (it matches nothing).
//
// anchorExpr is what anchors_fts is asked: every word and phrase, as
// written or as stems, without the exclusions (which the document's own
// fields answer for): anchor text adds to the relevance of a document
// when it holds the whole query (see textindex.Weights.Anchor).
func matchExpr(q textindex.Query) (expr, anchorExpr string, sites []terms.Site) {
	s := searchOf(q)
	if !s.Positive() {
		return "", "", nil
	}
	quote := func(words []string) string {
		quoted := make([]string, len(words))
		for n, w := range words {
			quoted[n] = strings.ReplaceAll(w, `"`, `""`)
		}
		return `"` + strings.Join(quoted, " ") + `"`
	}
	var parts []string
	for _, u := range s.Units(terms.StemmerFor(q.Language)) {
		if len(u.Stems) == 0 { // stop words only: they have no stems
			parts = append(parts, quote(u.Exact))
			continue
		}
		parts = append(parts, "("+quote(u.Exact)+" OR "+quote(u.Stems)+")")
	}
	expr = strings.Join(parts, " AND ")
	anchorExpr = expr
	if len(s.Exclude) > 0 {
		expr = "(" + expr + ")"
		for _, w := range s.Exclude {
			expr += " NOT " + quote([]string{w})
		}
	}
	return expr, anchorExpr, s.Sites
}

// searchOf is q as a search-box query: a match query's words, a phrase
// query's phrase, or the parsed syntax of a search query.
func searchOf(q textindex.Query) terms.Search {
	switch q.Type {
	case textindex.QueryTypePhrase:
		words, _ := terms.Query(q.Expression, true)
		if len(words) > 1 {
			return terms.Search{Phrases: [][]string{words}}
		}
		return terms.Search{Words: words}
	case textindex.QueryTypeSearch:
		s, _ := terms.ParseSearch(q.Expression)
		return s
	}
	words, _ := terms.Query(q.Expression, false)
	return terms.Search{Words: words}
}

// Search runs q; see textindex.Indexer and textindex.Query.
func (i *Index) Search(q textindex.Query) (textindex.Iterator, error) {
	return i.SearchContext(context.Background(), q)
}

// SearchContext is Search ending when ctx does (textindex.ContextSearcher):
// SQLite interrupts the statement under way.
func (i *Index) SearchContext(ctx context.Context, q textindex.Query) (textindex.Iterator, error) {
	switch q.Type {
	case textindex.QueryTypeMatch, textindex.QueryTypePhrase, textindex.QueryTypeSearch:
	default:
		return nil, fmt.Errorf("sqlite: search: %w: %v", textindex.ErrUnknownQueryType, q.Type)
	}
	weights, err := textindex.WeightsOf(q)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	expr, anchorExpr, sites := matchExpr(q)
	if expr == "" {
		return pager.New(q, 0, nil), nil
	}
	var names []string
	for _, s := range sites {
		names = append(names, s.String())
	}
	site := strings.Join(names, " ")
	// Counting needs no ranking and no join, unless sites restrict the
	// hits: FTS5 answers it from the inverted index alone.
	count := `SELECT count(*) FROM docs_fts WHERE docs_fts MATCH ?`
	args := []any{expr}
	if site != "" {
		count = `SELECT count(*) FROM docs_fts JOIN bodies b ON b.id = docs_fts.rowid
			WHERE docs_fts MATCH ? AND linksrus_on_site(b.url, ?)`
		args = append(args, site)
	}
	fetch := func(ctx context.Context, offset uint64, limit int) ([]*textindex.Document, error) {
		return i.fetchPage(ctx, expr, anchorExpr, site, weights, q.URLsOnly, offset, limit)
	}
	// The count and the first page, each on a connection of its own, at
	// once: a search waits for the slower of them rather than for both
	// (a window count in the page's statement instead, as the PostgreSQL
	// backend has, buffered every hit: 100k documents, median 23.8 ->
	// 19.9 ms but p99 347 -> 405).
	var (
		total uint64
		first []*textindex.Document
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := i.db.QueryRowContext(gctx, count, args...).Scan(&total); err != nil {
			return fmt.Errorf("sqlite: search %q: count: %w", q.Expression, i.storeErr(err))
		}
		return nil
	})
	if q.Offset <= math.MaxInt64 { // beyond, no page has a result
		g.Go(func() (err error) {
			first, err = fetch(gctx, q.Offset, pager.FirstSize(q))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err // each says what failed
	}
	return pager.Started(q, total, first, func(offset uint64, limit int) ([]*textindex.Document, error) {
		return fetch(ctx, offset, limit)
	}), nil
}

// pageQuery ranks the hits over rowids and the small docs rows, and joins
// only the requested page back to the stored text. The verbs are the
// title, headings and text columns (textColumns, or noTextColumns for
// URLsOnly, whose rows SQLite then reads no further than the URL) and a
// condition on the hit's URL (onSites), or none.
//
// The anchor text's BM25 (anchors_fts's, over its own rows) is added to
// the fields': the hits of docs_fts whose anchor text holds the query are
// found in a materialised table of anchors_fts's hits.
// It is summed after the fields' and before the prior, as the memory
// backend sums, so that the two agree to the last bit.
const pageQuery = `
	WITH a AS MATERIALIZED (
		SELECT rowid AS id, bm25(anchors_fts, ?, ?) AS r FROM anchors_fts WHERE anchors_fts MATCH ?
	)
	SELECT p.link_id, p.page_rank, b.url, %s, b.indexed_at, b.content_hash, b.redirect, b.lang, p.rel, %s
	FROM (
		SELECT d.id, d.link_id, d.page_rank, ? * ln(1 + max(d.page_rank, 0)) + (-h.r - coalesce(a.r, 0)) AS score,
			-h.r - coalesce(a.r, 0) AS rel
		FROM (SELECT rowid AS id, bm25(docs_fts, ?, ?, ?, ?, ?, ?, ?, ?) AS r FROM docs_fts WHERE docs_fts MATCH ?) h
		JOIN docs d ON d.id = h.id
		LEFT JOIN a ON a.id = h.id
		%s
		ORDER BY score DESC, d.link_id
		LIMIT ? OFFSET ?
	) p
	JOIN bodies b ON b.id = p.id
	%s
	ORDER BY p.score DESC, p.link_id`

const (
	textColumns    = "b.title, b.headings, b.content"
	noTextColumns  = "'', '', ''"
	anchorColumn   = "an.texts"
	noAnchorColumn = "NULL"
	anchorJoin     = "LEFT JOIN anchors an ON an.id = p.id"
	onSites        = "JOIN bodies sb ON sb.id = d.id WHERE linksrus_on_site(sb.url, ?)"
)

var (
	pageQueryAll   = fmt.Sprintf(pageQuery, textColumns, anchorColumn, "", anchorJoin)
	pageQuerySites = fmt.Sprintf(pageQuery, textColumns, anchorColumn, onSites, anchorJoin)
	urlsQueryAll   = fmt.Sprintf(pageQuery, noTextColumns, noAnchorColumn, "", "")
	urlsQuerySites = fmt.Sprintf(pageQuery, noTextColumns, noAnchorColumn, onSites, "")
)

// fetchPage reads one page of a search's results; site, if not "", is the
// space-separated sites the results must be on.
func (i *Index) fetchPage(ctx context.Context, expr, anchorExpr, site string, w textindex.Weights, urlsOnly bool, offset uint64, limit int) ([]*textindex.Document, error) {
	// anchors_fts's columns' weights and its query (one that matches
	// nothing when anchor text weighs nothing: bm25 of a weight of 0 is
	// still work), then the prior's weight (textindex.Weights.Prior),
	// then the columns' in the order of docs_fts's: the fields as
	// written, then their stems.
	if w.Anchor == 0 {
		anchorExpr = `""`
	}
	args := []any{w.Anchor, w.Stem * w.Anchor, anchorExpr,
		w.PageRank, w.Title, w.URL, w.Headings, w.Body,
		w.Stem * w.Title, w.Stem * w.URL, w.Stem * w.Headings, w.Stem * w.Body, expr}
	all, sites := pageQueryAll, pageQuerySites
	if urlsOnly {
		all, sites = urlsQueryAll, urlsQuerySites
	}
	query := all
	if site != "" {
		query, args = sites, append(args, site)
	}
	args = append(args, limit, int64(offset))
	rows, err := i.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: fetch results: %w", i.storeErr(err))
	}
	defer rows.Close()
	var docs []*textindex.Document
	for rows.Next() {
		var (
			rel     float64
			anchorT sql.NullString
		)
		doc, err := scanDoc(rows, &rel, &anchorT)
		if err != nil {
			return nil, fmt.Errorf("sqlite: search: read result: %w", err)
		}
		doc.Relevance, doc.Anchors = rel, anchors.Split(anchorT.String)
		docs = append(docs, doc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: search: fetch results: %w", i.storeErr(err))
	}
	if urlsOnly {
		return docs, nil
	}
	if err := i.alsoAt(ctx, docs); err != nil {
		return nil, fmt.Errorf("sqlite: search: duplicates of results: %w", i.storeErr(err))
	}
	return docs, nil
}

// Count implements textindex.Counter.
func (i *Index) Count(ctx context.Context) (uint64, error) {
	var n uint64
	if err := i.db.QueryRowContext(ctx, `SELECT count(*) FROM bodies WHERE canon`).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: count: %w", i.storeErr(err))
	}
	return n, nil
}

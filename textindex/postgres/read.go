package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/anchors"
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
	ctx := context.Background()
	var (
		canon   uuid.UUID
		links   []byte
		anchorT *string
	)
	row := i.pool.QueryRow(ctx, `
		SELECT link_id, url, title, content, headings, indexed_at, page_rank, coalesce(content_hash, ''), redirect, lang,
			coalesce((SELECT o.link_id FROM textindex_documents o
				WHERE o.content_hash = d.content_hash AND o.indexed
				ORDER BY `+canonicalOrder("o")+` LIMIT 1), d.link_id),
			(SELECT l.links FROM textindex_links l WHERE l.link_id = d.link_id),
			(SELECT a.texts FROM textindex_anchors a WHERE a.link_id = d.link_id)
		FROM textindex_documents d WHERE link_id = $1 AND indexed`, linkID)
	doc, err := scanDoc(row, &canon, &links, &anchorT)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: find %s: %w", linkID, textindex.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: find %s: %w", linkID, closedErr(err))
	}
	if doc.Links, err = anchors.Links(links); err != nil {
		return nil, fmt.Errorf("postgres: find %s: %w: %w", linkID, err, textindex.ErrCorrupt)
	}
	if canon != doc.LinkID {
		doc.DuplicateOf = canon
	} else if anchorT != nil {
		doc.Anchors = anchors.Split(*anchorT)
	}
	if canon == doc.LinkID {
		if err := i.alsoAt(ctx, []*textindex.Document{doc}); err != nil {
			return nil, fmt.Errorf("postgres: find %s: duplicates: %w", linkID, closedErr(err))
		}
	}
	return doc, nil
}

// canonicalOrder is the ORDER BY of a group's documents, table alias t,
// as textindex.CompareCanonical orders them: COLLATE "C" compares URLs
// byte by byte, whatever the database's collation.
func canonicalOrder(t string) string {
	return fmt.Sprintf(`%[1]s.redirect, octet_length(%[1]s.url), %[1]s.url COLLATE "C", %[1]s.link_id`, t)
}

// canonicalSQL is the condition that document d is searchable: in no
// group, or first of its group. Only a document whose hash is shared
// (textindex_hashes, see migration 0008) can be in a group: the shared
// hashes are found once for a statement (a hashed subplan of a few rows),
// and the group of a document whose hash is one of them is looked up in
// the index of groups (see migration 0002), which took 8 microseconds a
// hit when every hit was looked up.
const canonicalSQL = `(d.content_hash IS NULL
	OR NOT EXISTS (SELECT 1 FROM textindex_hashes h WHERE h.content_hash = d.content_hash AND h.shared)
	OR NOT EXISTS (
		SELECT 1 FROM textindex_documents o
		WHERE o.content_hash = d.content_hash AND o.indexed
		AND (o.redirect, octet_length(o.url), o.url COLLATE "C", o.link_id)
			< (d.redirect, octet_length(d.url), d.url COLLATE "C", d.link_id)))`

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
	rows, err := i.pool.Query(ctx, `
		SELECT content_hash, url FROM (
			SELECT o.content_hash, o.url, row_number() OVER (PARTITION BY o.content_hash ORDER BY `+canonicalOrder("o")+`) AS n
			FROM textindex_documents o WHERE o.content_hash = ANY($1) AND o.indexed
		) s WHERE n BETWEEN 2 AND $2 ORDER BY content_hash, n`, hashes, textindex.MaxAlsoAt+1)
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

// scanDoc reads link_id, url, title, content, headings, indexed_at,
// page_rank, content_hash (coalesced to ”), redirect, lang.
func scanDoc(row pgx.Row, extra ...any) (*textindex.Document, error) {
	var (
		doc       textindex.Document
		indexedAt *time.Time
	)
	if err := row.Scan(append([]any{&doc.LinkID, &doc.URL, &doc.Title, &doc.Content, &doc.Headings, &indexedAt, &doc.PageRank, &doc.ContentHash, &doc.Redirect, &doc.Language}, extra...)...); err != nil {
		return nil, err
	}
	if indexedAt != nil {
		doc.IndexedAt = indexedAt.UTC()
	}
	return &doc, nil
}

// Search runs q; see textindex.Indexer and textindex.Query.
//
// The user's text never reaches PostgreSQL's query parser: it is split
// into terms here, as documents are (see vectors.go), and each word or
// phrase is a bound tsquery of quoted lexemes; exclusions are negated
// tsqueries of one word each.
func (i *Index) Search(q textindex.Query) (textindex.Iterator, error) {
	return i.SearchContext(context.Background(), q)
}

// SearchContext is Search ending when ctx does (textindex.ContextSearcher):
// the server cancels the statement under way.
func (i *Index) SearchContext(ctx context.Context, q textindex.Query) (textindex.Iterator, error) {
	s, ok := searchOf(q)
	if !ok {
		return nil, fmt.Errorf("postgres: search: %w: %v", textindex.ErrUnknownQueryType, q.Type)
	}
	weights, err := textindex.WeightsOf(q)
	if err != nil {
		return nil, fmt.Errorf("postgres: search: %w", err)
	}
	if !s.Positive() {
		return pager.New(q, 0, nil), nil
	}
	where, page, args, ok := searchSQL(s, q, pageSQL)
	if !ok {
		return pager.New(q, 0, nil), nil
	}
	// The first page counts the hits as it ranks them, all of which it
	// must rank anyway: a statement of its own that counted them found
	// them all again (a third of a search's time, 100k documents).
	var (
		first []*textindex.Document
		total int64
	)
	if q.Offset <= math.MaxInt64 { // beyond, no page has a result
		first, total, err = i.fetchPage(ctx, page, !q.URLsOnly, pageArgs(args, weights, pager.FirstSize(q), q.Offset))
		if err != nil {
			return nil, fmt.Errorf("postgres: search %q: %w", q.Expression, err)
		}
	}
	if len(first) == 0 && q.Offset > 0 {
		// Past the last hit the page has no row to carry the total.
		err = i.pool.QueryRow(ctx, `SELECT count(*) FROM textindex_documents d WHERE `+where, append([]any{planned}, args...)...).Scan(&total)
		if err != nil {
			return nil, fmt.Errorf("postgres: search %q: count: %w", q.Expression, closedErr(err))
		}
	}
	return pager.Started(q, uint64(total), first, func(offset uint64, limit int) ([]*textindex.Document, error) {
		docs, _, err := i.fetchPage(ctx, page, !q.URLsOnly, pageArgs(args, weights, limit, offset))
		if err != nil {
			return nil, fmt.Errorf("postgres: search: %w", err)
		}
		return docs, nil
	}), nil
}

// searchSQL returns the condition on the hits of s, a search for q, and
// the statement of a page of them made from tmpl (pageSQL, whose verbs it
// fills), and the parameters both take; ok is false when s can match no
// document. The condition it gives tmpl leaves out canonicalSQL, which
// tmpl applies where it must (see pageSQL); the one it returns has it.
func searchSQL(s terms.Search, q textindex.Query, tmpl string) (where, page string, args []any, ok bool) {
	match, anchored, exact, stemmed, args, ok := querySQL(s, terms.StemmerFor(q.Language))
	if !ok {
		return "", "", nil, false
	}
	where = "d.indexed AND " + match
	if len(s.Sites) > 0 {
		hosts, ports := make([]string, len(s.Sites)), make([]string, len(s.Sites))
		for n, site := range s.Sites {
			hosts[n], ports[n] = site.Host, site.Port
		}
		args = append(args, hosts, ports)
		where += " AND " + onSites(len(args)-1, len(args))
	}
	n := len(args)
	columns := textColumns
	if q.URLsOnly {
		columns = noTextColumns
	}
	// Without stems the stem weight's parameter is still used, as the
	// server types a parameter by its use.
	stemRank, anchorStemRank := fmt.Sprintf("0 * $%d::FLOAT8", n+2), "0"
	if stemmed != "" {
		stemRank = fmt.Sprintf("$%d::FLOAT8 * ts_rank($%d::FLOAT4[], d.stems, %s)", n+2, n+1, stemmed)
		anchorStemRank = fmt.Sprintf("$%d::FLOAT8 * ts_rank(a.stems, %s)", n+2, stemmed)
	}
	page = fmt.Sprintf(tmpl, n+1, n+2, n+3, n+4, exact, anchored, anchorStemRank, tsRankScale, stemRank, where, n+5, n+6, columns)
	return where + " AND " + canonicalSQL, page, args, true
}

// pageArgs returns the parameters of a page's statement (searchSQL): the
// search's, then the weights', the limit and the offset.
func pageArgs(args []any, w textindex.Weights, limit int, offset uint64) []any {
	return append(slices.Clone(args), rankWeights(w), w.Stem, w.PageRank, anchorWeight(w), limit, int64(offset))
}

// searchOf is q as a search-box query: a match query's words, a phrase
// query's phrase, or the parsed syntax of a search query.
func searchOf(q textindex.Query) (terms.Search, bool) {
	switch q.Type {
	case textindex.QueryTypeMatch:
		words, _ := terms.Query(q.Expression, false)
		return terms.Search{Words: words}, true
	case textindex.QueryTypePhrase:
		words, _ := terms.Query(q.Expression, true)
		if len(words) > 1 {
			return terms.Search{Phrases: [][]string{words}}, true
		}
		return terms.Search{Words: words}, true
	case textindex.QueryTypeSearch:
		s, _ := terms.ParseSearch(q.Expression)
		return s, true
	}
	return terms.Search{}, false
}

// querySQL returns, as SQL over bound parameters $1…$n, and their values:
// the condition that a document (d) holds every word and phrase of s as
// written (d.tsv) or as stems in the language of st (d.stems), and none of
// its exclusions as written; the tsquery of its words and phrases as
// written, ORed; and the tsquery of its stems, ORed ("" when it has none).
// anchored is the condition that a document's anchor text (a) holds every
// word and phrase of s, as written or as stems. ok is false when a word
// or phrase of s can match no document (a term too long to be indexed).
func querySQL(s terms.Search, st terms.Stemmer) (match, anchored, exact, stemmed string, args []any, ok bool) {
	param := func(q string) string {
		args = append(args, q)
		return fmt.Sprintf("$%d::TSQUERY", len(args))
	}
	var conds, anchors, exacts, stems []string
	for _, u := range s.Units(st) {
		q, ok := tsquery(u.Exact)
		if !ok {
			return "", "", "", "", nil, false
		}
		e := param(q)
		exacts = append(exacts, e)
		if len(u.Stems) == 0 { // stop words only: they have no stems
			conds = append(conds, "d.tsv @@ "+e)
			anchors = append(anchors, "a.tsv @@ "+e)
			continue
		}
		plain := make([]string, len(u.Stems))
		for n, w := range u.Stems {
			plain[n] = strings.TrimPrefix(w, terms.StemMark) // the stems column holds stems only
		}
		q, _ = tsquery(plain) // stems are short
		stem := param(q)
		conds = append(conds, fmt.Sprintf("(d.tsv @@ %s OR d.stems @@ %s)", e, stem))
		anchors = append(anchors, fmt.Sprintf("(a.tsv @@ %s OR a.stems @@ %s)", e, stem))
		stems = append(stems, stem)
	}
	for _, w := range s.Exclude {
		if q, ok := tsquery([]string{w}); ok { // else no document holds it
			conds = append(conds, "NOT d.tsv @@ "+param(q))
		}
	}
	return strings.Join(conds, " AND "), strings.Join(anchors, " AND "), strings.Join(exacts, " || "), strings.Join(stems, " || "), args, true
}

// onSites is the condition that d.url is on one of the sites whose hosts
// and ports are the text arrays in parameters $hosts and $ports, as
// terms.Site.Holds decides it in the other backends. urlPlace reads the
// URL's scheme, host and port as package url does: the authority runs
// from "//" to the first '/', '?' or '#'; user information ends at its
// last '@'; an IPv6 host is in brackets; a port is digits (any other
// makes the URL unparsable, on no site).
func onSites(hosts, ports int) string {
	return fmt.Sprintf(`EXISTS (
		SELECT 1
		FROM (SELECT regexp_match(d.url, '%s') AS m) r,
			LATERAL (SELECT
				rtrim(lower(r.m[2]), '.') AS host,
				CASE lower(r.m[1]) WHEN 'http' THEN '80' WHEN 'https' THEN '443' ELSE '' END AS dflt,
				CASE WHEN coalesce(r.m[3], '') = '' THEN '' ELSE coalesce(nullif(ltrim(r.m[3], '0'), ''), '0') END AS port) u,
			unnest($%d::TEXT[], $%d::TEXT[]) AS s(host, port)
		WHERE u.host <> ''
		AND (u.host = s.host OR (s.host !~ '^(\[.*|[0-9.]*)$' AND right(u.host, length(s.host) + 1) = '.' || s.host))
		AND CASE WHEN s.port = '' THEN u.port IN ('', u.dflt) ELSE s.port = coalesce(nullif(u.port, ''), u.dflt) END)`,
		urlPlace, hosts, ports)
}

// urlPlace matches an absolute URL and captures its scheme, host and port
// (see onSites); a PostgreSQL advanced regular expression.
const urlPlace = `^([A-Za-z][A-Za-z0-9+.-]*)://(?:[^/?#]*@)?(\[[^]/?#@[]*\]|[^]/?#:@[]*)(?::([0-9]*))?(?:[/?#]|$)`

// pageSQL ranks the hits on key and score alone and joins only the page
// being returned back to the stored text. The verbs are the numbers of the
// field weights, stem weight, prior weight and anchor weight parameters,
// the tsquery of the words as written, the condition that the anchor text
// holds the query (querySQL), what the stems add to the anchor text's rank
// (the stem weight times their rank, or 0), tsRankScale, what the stems
// add to the fields' rank, the condition on hits (without the canonical
// check, which the statement applies to the ranked rows), the limit and
// offset parameters' numbers, and the title, text and headings columns
// (textColumns, or noTextColumns for URLsOnly: no TOASTed text is read).
// The relevance is the rank of the words as written plus Weights.Stem
// times the stems', plus the anchor text's ranked alike times its weight
// (anchorWeight) when it holds the query, and the score relevance + the
// prior (textindex.Weights.Prior). The anchor texts holding the query are
// found through their GIN indexes, rather than each hit's anchor text
// looked up and tested (the facet of a broad query took half the time
// so, 100k documents).
//
// Each hit is ranked once, in a subquery kept apart (OFFSET 0) whose rows
// are its key, prior, rank and what the canonical check needs, joined to
// the anchor texts holding the query by a hash (pageSettings): a nested
// loop over both, which a planner that misjudges how many hits a query
// has (a fresh table, words in most documents) chose, took 5.3 s for two
// words in 97,705 of 100,000 documents. That subquery reads its weights
// and queries from the statement's parameters, and the canonical check
// (whose subqueries on the hit's hash a worker may not run) is left to
// the rows it returns, so that parallel workers can find, join and rank
// the hits, each a part of the table, and send the leader narrow rows:
// the scan of every row's vectors, which a broad query cannot escape, is
// divided among them. A word in all of 100,000 documents took 250 ms in
// one process, 170 with two workers; on the 100k benchmark's queries p99
// 220 -> 142 ms, mean 51 -> 37, for a fifth more CPU time in all.
//
// The statement counts the hits it ranked (ranked, kept once for the
// count and the page's sort), which the search's first page reads instead
// of counting them in a statement of its own; a window count(*) OVER ()
// over the hits took 4-5 ms more of the broadest query (100k benchmark:
// p99 142 -> 135 ms). The page's documents are read by their key in a
// subquery that cannot become a join (LIMIT 1).
const pageSQL = `
	WITH ranked AS MATERIALIZED (
		SELECT d.link_id, r.rel, r.rel + $%[3]d::FLOAT8 * ln(1 + greatest(d.page_rank, 0)) AS score
		FROM (
			SELECT d.link_id, d.page_rank, d.content_hash, d.redirect, d.url,
				(ts_rank($%[1]d::FLOAT4[], d.tsv, %[5]s) + %[9]s)::FLOAT8 AS rank, a.rank AS anchor_rank
			FROM textindex_documents d LEFT JOIN (
				SELECT a.link_id, $%[4]d::FLOAT8 * (ts_rank(a.tsv, %[5]s) + %[7]s) AS rank
				FROM textindex_anchors a
				WHERE $%[4]d::FLOAT8 > 0 AND %[6]s
			) a ON a.link_id = d.link_id
			WHERE %[10]s
			OFFSET 0
		) d,
			LATERAL (SELECT %[8]g * (d.rank + coalesce(d.anchor_rank, 0)) AS rel) r
		WHERE ` + canonicalSQL + `
	), hits AS (
		SELECT link_id, rel, score, (SELECT count(*) FROM ranked) AS total FROM ranked
		ORDER BY score DESC, link_id
		LIMIT $%[11]d OFFSET $%[12]d
	)
	SELECT d.link_id, d.url, %[13]s, d.indexed_at, d.page_rank, coalesce(d.content_hash, ''), d.redirect, d.lang, hits.rel::float8,
		(SELECT a.texts FROM textindex_anchors a WHERE a.link_id = d.link_id),
		hits.total
	FROM hits, LATERAL (
		SELECT link_id, url, title, content, headings, indexed_at, page_rank, content_hash, redirect, lang
		FROM textindex_documents WHERE link_id = hits.link_id LIMIT 1
	) d
	ORDER BY hits.score DESC, hits.link_id`

// pageSettings is how a page's statement (pageSQL) is planned (see
// fetchPage): joins by hash only, so that its one join on keys, of the
// hits and their anchor texts, is a hash whatever the planner estimates;
// the joins it cannot hash (the page's documents read by key in a LATERAL
// subquery) stay loops. Parallel workers cost nothing to the planner,
// whose costs of a scan are its pages and rows, not the matching and
// ranking of every row's vectors, which a worker divides: with the
// default costs it ranked a word in all of 100,000 documents in one
// process. How many workers a search gets is the server's to say
// (max_parallel_workers_per_gather, 2 by default, and the server-wide
// max_parallel_workers); a search finding none free runs alone.
//
// Memory for its hash and its ranked hits: 16 MB a node, where the
// server's default is 4. The hash of the anchor texts holding the
// broadest word of a million documents (197,000 of them) took 8 batches
// with 4 MB, and with batches the documents' side of the join went to
// disk as well, vectors and all (their ranks are computed above the
// join): 3.9 GB written and read, 5.5 s of a search that takes 2.2 s with
// 16 MB (64 and 128 MB: no faster). A search holds a few such nodes in
// each of its processes; a parallel hash's budget is shared by them.
const pageSettings = `SET LOCAL jit = off; SET LOCAL parallel_setup_cost = 0; SET LOCAL parallel_tuple_cost = 0;
	SET LOCAL enable_nestloop = off; SET LOCAL enable_mergejoin = off; SET LOCAL work_mem = '16MB'`

// The title, text and headings columns of a page of results, or none
// (URLsOnly).
const (
	textColumns   = "d.title, d.content, d.headings"
	noTextColumns = "'', '', ''"
)

// planned is how a search's statements are sent: as unnamed statements
// whose description pgx caches, so that the server plans each for its
// parameters. A named statement (pgx's default) is planned, after five
// runs, once for any parameters: a plan that cannot know whether a word
// is in ten documents or in all of them. On 100,000 documents whose
// tables autovacuum has analysed, this (with a page statement that then
// had no parallel workers) made the benchmark's searches 37 ms at the
// median where they were 102-116, 0.9 s at p99 where they were 3.4-4.4;
// without statistics they change nothing measurable.
const planned = pgx.QueryExecModeCacheDescribe

// fetchPage reads one page of a search's results, and their AlsoAt when
// withAliases, and the number of hits the search has in all (0 when the
// page is empty: no row carries it).
//
// Its statement runs with pageSettings. Not compiled (jit = off): the
// planner's cost of a broad query, whose every hit is ranked, passes the
// threshold of JIT compilation, which took 27 ms of a search and saved
// less than it cost (100k benchmark queries: p90 237 -> 214 ms, p99 340
// -> 320, mean 75 -> 69).
// With joins by hash only: see pageSQL.
func (i *Index) fetchPage(ctx context.Context, page string, withAliases bool, args []any) ([]*textindex.Document, int64, error) {
	var (
		docs  []*textindex.Document
		total int64
	)
	err := pgx.BeginTxFunc(ctx, i.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		docs = docs[:0]
		if _, err := tx.Exec(ctx, pageSettings); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, page, append([]any{planned}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				rel     float64
				anchorT *string
			)
			doc, err := scanDoc(rows, &rel, &anchorT, &total)
			if err != nil {
				return fmt.Errorf("read result: %w", err)
			}
			doc.Relevance = rel
			if anchorT != nil {
				doc.Anchors = anchors.Split(*anchorT)
			}
			docs = append(docs, doc)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, 0, fmt.Errorf("fetch results: %w", closedErr(err))
	}
	if !withAliases {
		return docs, total, nil
	}
	if err := i.alsoAt(ctx, docs); err != nil {
		return nil, 0, fmt.Errorf("duplicates of results: %w", closedErr(err))
	}
	return docs, total, nil
}

// Count implements textindex.Counter.
func (i *Index) Count(ctx context.Context) (uint64, error) {
	var n int64
	if err := i.pool.QueryRow(ctx, `SELECT count(*) FROM textindex_documents d WHERE indexed AND `+canonicalSQL).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count: %w", closedErr(err))
	}
	return uint64(n), nil
}

// tsRankScale puts ts_rank on the scale of the other backends' BM25, of
// which it is about a fiftieth on the judged corpora (a title match about
// 0.6 where BM25 gives 30, a word of the text 0.06 where it gives 3), so
// that the prior of PageRank (textindex.Weights.Prior) weighs as much
// against the text here as there: without it the default prior, 0.1,
// would outweigh most text scores (make relevance, pg corpus: MRR@10
// 0.861 unscaled, 0.914 so).
const tsRankScale = 50.0

// anchorWeight returns the weight of the anchor text's rank (ts_rank with
// its default weights, the text's label D counting 0.1) beside the
// fields' (rankWeights): Weights.Anchor as the fields' weights are
// scaled, and ten times that for the label's 0.1.
func anchorWeight(w textindex.Weights) float64 {
	return 10 * w.Anchor / topWeight(w)
}

// rankWeights returns w as ts_rank's weights of the labels D, C, B and A
// (text, headings, URL, title; see vectors.go), scaled so that the
// largest is 1, the most ts_rank accepts. The headings' is headingsWeight.
func rankWeights(w textindex.Weights) []float32 {
	top := topWeight(w)
	return []float32{float32(w.Body / top), float32(headingsWeight(w) / top), float32(w.URL / top), float32(w.Title / top)}
}

// headingsWeight returns label C's weight, before rankWeights scales it,
// for w's headings beside its body: so that a word found once in a
// heading and once in the text ranks beside the word found once in the
// text as in the other backends' BM25F, where it counts Headings + Body
// against Body, both saturated (tf / (tf + k1)): with the default
// weights, 1.69 times as much. ts_rank ranks a word by its heaviest
// position, counting the others by their place (1/n²): a heading's
// position, before the text's, adds its weight C when C <= Body, and
// makes C + Body/4 of it above. Given the field's weight itself (3), a
// heading's word outranked the word said any number of times in the text
// alone, and the judged PostgreSQL documentation queries lost what the
// other backends gained (MRR@10 0.906 where 0.961).
func headingsWeight(w textindex.Weights) float64 {
	const k1 = 1.2 // BM25's, over a document of average length
	saturated := func(tf float64) float64 { return tf / (tf + k1) }
	ratio := saturated(w.Headings+w.Body) / saturated(w.Body)
	if ratio <= 2 {
		return (ratio - 1) * w.Body
	}
	return (ratio - 0.25) * w.Body
}

// topWeight is the largest of the labels' weights, which rankWeights
// scales to 1.
func topWeight(w textindex.Weights) float64 {
	return max(w.Title, w.URL, headingsWeight(w), w.Body)
}

package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/anchors"
	"github.com/linksrus/linksrus/textindex/internal/docbatch"
	"github.com/linksrus/linksrus/textindex/internal/terms"
)

var _ textindex.BatchIndexer = (*Index)(nil)

// IndexBatch stores docs in one round trip, one transaction; see
// textindex.BatchIndexer. The rows come from parallel arrays through
// unnest. Rows are written in LinkID order, and their content hashes
// (textindex_hashes, see migration 0008) in hash order before them, so
// that concurrent batches touching the same documents or hashes lock them
// in the same order and cannot deadlock each other.
func (i *Index) IndexBatch(docs []*textindex.Document) error {
	docs, err := docbatch.Prepare(docs)
	if err != nil {
		return fmt.Errorf("postgres: index batch: %w", err)
	}
	if len(docs) == 0 {
		return nil
	}
	docs = slices.Clone(docs)
	slices.SortFunc(docs, func(a, b *textindex.Document) int { return linkgraph.CompareIDs(a.LinkID, b.LinkID) })
	var (
		// Plain arrays: pgx encodes uuid.UUID through its driver.Valuer,
		// as text, element by element.
		ids                  = make([][16]byte, len(docs))
		urls, titles, bodies = make([]string, len(docs)), make([]string, len(docs)), make([]string, len(docs))
		headings             = make([]string, len(docs))
		urlTermsOf, langs    = make([]string, len(docs)), make([]string, len(docs))
		exact, stems         = make([]pgtype.TSVector, len(docs)), make([]pgtype.TSVector, len(docs))
		times                = make([]time.Time, len(docs))
		ranks                = make([]float64, len(docs))
		contentHashes        = make([]string, len(docs))
		redirects            = make([]bool, len(docs))
		links                = make([][]byte, len(docs))
	)
	v := newVectors()
	for n, d := range docs {
		ids[n], times[n], ranks[n] = d.LinkID, d.IndexedAt, d.PageRank
		contentHashes[n], redirects[n], langs[n] = sanitize(d.ContentHash), d.Redirect, sanitize(d.Language)
		urls[n], titles[n], bodies[n] = sanitize(d.URL), sanitize(d.Title), sanitize(d.Content)
		headings[n] = sanitize(d.Headings)
		urlTermsOf[n] = urlTerms(urls[n])
		exact[n], stems[n] = v.document(titles[n], urlTermsOf[n], headings[n], bodies[n], terms.StemmerFor(d.Language))
		links[n] = anchors.Encode(d.Links)
	}
	hashes := hashesOf(docs, contentHashes)
	err = withRetry(context.Background(), func(ctx context.Context) error {
		// A batch of statements is one implicit transaction.
		b := &pgx.Batch{}
		if len(hashes.hash) > 0 {
			b.Queue(`
				INSERT INTO textindex_hashes AS h (content_hash, link_id, shared)
				SELECT * FROM unnest($1::TEXT[], $2::UUID[], $3::BOOL[])
				ON CONFLICT (content_hash) DO UPDATE SET shared = true
				WHERE NOT h.shared AND (h.link_id <> excluded.link_id OR excluded.shared)`,
				hashes.hash, hashes.first, hashes.shared)
		}
		b.Queue(`
			WITH links AS (
				INSERT INTO textindex_links (link_id, links)
				SELECT link_id, links FROM unnest($1::UUID[], $13::BYTEA[]) AS l (link_id, links)
				ON CONFLICT (link_id) DO UPDATE SET links = excluded.links
			)
			INSERT INTO textindex_documents (link_id, url, title, content, headings, indexed_at, page_rank, indexed, content_hash, redirect, url_terms, lang, tsv, stems)
			SELECT link_id, url, title, content, headings, indexed_at, page_rank, true, NULLIF(content_hash, ''), redirect, url_terms, lang, tsv, stems
			FROM unnest($1::UUID[], $2::TEXT[], $3::TEXT[], $4::TEXT[], $14::TEXT[], $5::TIMESTAMPTZ[], $6::DOUBLE PRECISION[],
				$7::TEXT[], $8::BOOL[], $9::TEXT[], $10::TEXT[], $11::TSVECTOR[], $12::TSVECTOR[])
				AS d (link_id, url, title, content, headings, indexed_at, page_rank, content_hash, redirect, url_terms, lang, tsv, stems)
			ON CONFLICT (link_id) DO UPDATE SET
				url = excluded.url, title = excluded.title, content = excluded.content, headings = excluded.headings,
				url_terms = excluded.url_terms, indexed_at = excluded.indexed_at, indexed = true,
				content_hash = excluded.content_hash, redirect = excluded.redirect,
				lang = excluded.lang, tsv = excluded.tsv, stems = excluded.stems`,
			ids, urls, titles, bodies, times, ranks, contentHashes, redirects, urlTermsOf, langs, exact, stems, links, headings)
		return i.pool.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return fmt.Errorf("postgres: index batch of %d: %w", len(docs), err)
	}
	return nil
}

// batchHashes are the content hashes of a batch, each once, in order, as
// parallel arrays: the first document with it (in LinkID order) and
// whether another of the batch has it too.
type batchHashes struct {
	hash   []string
	first  [][16]byte
	shared []bool
}

// hashesOf returns the hashes of docs, which are in LinkID order;
// contentHashes[n] is that of docs[n], sanitized ("" for none).
func hashesOf(docs []*textindex.Document, contentHashes []string) batchHashes {
	type entry struct {
		hash   string
		first  [16]byte
		shared bool
	}
	var entries []*entry
	byHash := make(map[string]*entry)
	for n, h := range contentHashes {
		if h == "" {
			continue
		}
		if e := byHash[h]; e != nil {
			e.shared = true
			continue
		}
		e := &entry{hash: h, first: docs[n].LinkID}
		byHash[h] = e
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b *entry) int { return strings.Compare(a.hash, b.hash) })
	var out batchHashes
	for _, e := range entries {
		out.hash = append(out.hash, e.hash)
		out.first = append(out.first, e.first)
		out.shared = append(out.shared, e.shared)
	}
	return out
}

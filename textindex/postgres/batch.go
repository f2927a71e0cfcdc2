package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/anchors"
	"github.com/linksrus/linksrus/textindex/internal/docbatch"
	"github.com/linksrus/linksrus/textindex/internal/terms"
)

var _ textindex.BatchIndexer = (*Index)(nil)

// IndexBatch stores docs with one statement, one round trip; see
// textindex.BatchIndexer. The rows come from parallel arrays through
// unnest; a single statement is atomic, so no
// transaction is needed. Rows are written in LinkID order so that
// concurrent batches touching the same documents lock them in the same
// order and cannot deadlock each other.
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
		hashes               = make([]string, len(docs))
		redirects            = make([]bool, len(docs))
		links                = make([][]byte, len(docs))
	)
	v := newVectors()
	for n, d := range docs {
		ids[n], times[n], ranks[n] = d.LinkID, d.IndexedAt, d.PageRank
		hashes[n], redirects[n], langs[n] = sanitize(d.ContentHash), d.Redirect, sanitize(d.Language)
		urls[n], titles[n], bodies[n] = sanitize(d.URL), sanitize(d.Title), sanitize(d.Content)
		headings[n] = sanitize(d.Headings)
		urlTermsOf[n] = urlTerms(urls[n])
		exact[n], stems[n] = v.document(titles[n], urlTermsOf[n], headings[n], bodies[n], terms.StemmerFor(d.Language))
		links[n] = anchors.Encode(d.Links)
	}
	err = withRetry(context.Background(), func(ctx context.Context) error {
		_, err := i.pool.Exec(ctx, `
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
			ids, urls, titles, bodies, times, ranks, hashes, redirects, urlTermsOf, langs, exact, stems, links, headings)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: index batch of %d: %w", len(docs), err)
	}
	return nil
}

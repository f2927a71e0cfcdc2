// Package postgres is the textindex backend for PostgreSQL's full-text
// search, for deployments that already run a database server, and the
// index of a crawl shared by several processes. PostgreSQL (tested with
// 15, Debian 12's) is the shared backend this project tests and promises;
// CockroachDB is untested, and the package is free to use what PostgreSQL
// offers (weighted vectors, other text search configurations, index
// access methods) where it ranks or runs better.
//
// # URLs
//
// Importing the package registers the "postgres" and "postgresql" schemes
// with textindex.Open; the URL is handed to pgx unchanged, so every
// libpq-style parameter and pgxpool's pool_* parameters work:
//
//	postgres://user:password@host:5432/dbname?sslmode=disable&pool_max_conns=8
//
// # Schema
//
// Open applies the embedded migrations (see the migrations directory) and
// records them in textindex_schema_migrations. Each migration runs in a
// transaction that first claims its version row, so processes opening the
// same database at once apply it exactly once: the others wait on the row
// and then skip it.
//
// Documents live in textindex_documents with two tsvectors, each with a
// GIN index: tsv, the terms as written, and stems, their stems in the
// document's language; title, URL path terms (column url_terms), headings
// and text are labelled A, B, C and D. The program finds the terms
// (package terms, as the other backends do) and writes both vectors; a
// query's words and phrases are tsqueries of the same terms. So
// PostgreSQL's text parser never runs: all backends split text alike, and
// an indexing server does not parse every page twice. The vectors stay in
// their row (a search reads them for every hit); a page's text, links and
// anchor texts are compressed with LZ4 where the server has it.
//
// # Ranking
//
// Relevance is ts_rank (default normalisation, times tsRankScale, 50, to be
// on the scale of BM25) of the vectors against the query, their labels
// weighted by the query's textindex.Weights (scaled so that the largest
// is 1, as ts_rank requires), the stems' rank times Weights.Stem, plus the
// anchor text's rank when it holds the query; the score is relevance +
// the prior of PageRank (textindex.Weights.Prior), ties broken by LinkID. Hits are
// ranked over the small key and score columns before the page being
// returned is joined back to the stored text.
//
// PostgreSQL text cannot hold NUL bytes or invalid UTF-8, so Index replaces
// both with U+FFFD before storing a document.
//
// Writes that fail with a serialization error (SQLSTATE 40001) or a
// deadlock (40P01) are retried.
package postgres

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/linksrus/linksrus/internal/pgretry"
	"github.com/linksrus/linksrus/textindex"
)

func init() {
	open := func(ctx context.Context, u *url.URL) (textindex.Indexer, error) {
		return Open(ctx, u.String(), Options{})
	}
	textindex.Register("postgres", open)
	textindex.Register("postgresql", open)
}

var _ textindex.Indexer = (*Index)(nil)

// Index is a textindex.Indexer stored in PostgreSQL.
type Index struct {
	pool *pgxpool.Pool
}

// Options tunes Open. It has no fields yet: what a deployment tunes
// (pool size, timeouts, TLS) is part of the connection string, so the URL
// form and Open configure the same things. It is here so that every
// backend's Open has one shape and a later setting is not a breaking
// change.
type Options struct{}

// Open connects to the database named by dsn (a postgres:// URL or a
// key=value connection string), checks that it answers and applies the
// schema migrations. ctx bounds the opening only; the Index does not keep
// it.
func Open(ctx context.Context, dsn string, opts Options) (*Index, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgx's parse errors already hide the password.
		return nil, fmt.Errorf("postgres: open: parse connection string: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: open: connect to %s: %w", cfg.ConnConfig.Host, err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	return &Index{pool: pool}, nil
}

// Close closes the connection pool, waiting for connections in use to be
// released.
func (i *Index) Close() error {
	i.pool.Close()
	return nil
}

// closedErr maps pgxpool's error for a closed pool to textindex.ErrClosed.
func closedErr(err error) error {
	if err != nil && strings.Contains(err.Error(), "closed pool") {
		return fmt.Errorf("%w (%w)", textindex.ErrClosed, err)
	}
	return err
}

// withRetry runs op through pgretry.Do (again on conflicts and, for a
// while, on a lost connection: the index's writes are upserts and deletes
// that come to the same when run again), mapping a closed pool's error.
func withRetry(ctx context.Context, op func(ctx context.Context) error) error {
	return closedErr(pgretry.Do(ctx, op))
}

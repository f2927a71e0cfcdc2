package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/linksrus/linksrus/internal/pgretry"
	"github.com/linksrus/linksrus/textindex/internal/terms"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migration is one embedded schema change; files are named NNNN_name.sql
// and applied in version order. Append new files, never edit applied ones.
type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, fmt.Errorf("read embedded migrations: %w", err)
	}
	var out []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("embedded migration %q: name must start with a positive version and '_'", e.Name())
		}
		body, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("read embedded migration %q: %w", e.Name(), err)
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(body)})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].version < out[b].version })
	return out, nil
}

// migrate applies the embedded migrations the database lacks.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	migs, err := loadMigrations()
	if err != nil {
		return err
	}
	err = withCreateRace(ctx, func(ctx context.Context) error {
		_, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS textindex_schema_migrations (
			version    INT PRIMARY KEY,
			applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
		)`)
		return err
	})
	if err != nil {
		return fmt.Errorf("create migrations table: %w", err)
	}
	for _, m := range migs {
		err := pgretry.Conflicts(ctx, func(ctx context.Context) error {
			return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				// Claiming the version row first serialises concurrent
				// openers: a second one blocks here until the first
				// commits, then finds the row and skips the migration.
				tag, err := tx.Exec(ctx, `INSERT INTO textindex_schema_migrations (version) VALUES ($1) ON CONFLICT DO NOTHING`, m.version)
				if err != nil {
					return err
				}
				if tag.RowsAffected() == 0 {
					return nil
				}
				if _, err := tx.Exec(ctx, m.sql); err != nil {
					return err
				}
				if fill := fills[m.version]; fill != nil {
					return fill(ctx, tx)
				}
				return nil
			})
		})
		if err != nil {
			return fmt.Errorf("apply migration %s: %w", m.name, err)
		}
	}
	return nil
}

// fills are the parts of migrations that only the program can do, run
// right after the migration's file in its transaction, by version.
var fills = map[int]func(ctx context.Context, tx pgx.Tx) error{
	4: fillStems,
}

// fillStems computes the stems column of the documents of before (in
// English, their language being unknown), a few hundred at a time, in
// LinkID order.
func fillStems(ctx context.Context, tx pgx.Tx) error {
	st := terms.StemmerFor("")
	var after [16]byte // the nil UUID sorts first
	for {
		rows, err := tx.Query(ctx, `SELECT link_id, title, url_terms, content FROM textindex_documents
			WHERE indexed AND link_id > $1 ORDER BY link_id LIMIT 500`, after)
		if err != nil {
			return fmt.Errorf("read documents to stem: %w", err)
		}
		var ids [][16]byte
		var titles, urls, bodies []string
		for rows.Next() {
			var id [16]byte
			var title, url, body string
			if err := rows.Scan(&id, &title, &url, &body); err != nil {
				rows.Close()
				return fmt.Errorf("read documents to stem: %w", err)
			}
			ids = append(ids, id)
			titles, urls, bodies = append(titles, stemsOf(title, st)), append(urls, stemsOf(url, st)), append(bodies, stemsOf(body, st))
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read documents to stem: %w", err)
		}
		if len(ids) == 0 {
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE textindex_documents d SET stems = `+fmt.Sprintf(stemsSQL, "s.title", "s.url", "s.body")+`
			FROM unnest($1::UUID[], $2::TEXT[], $3::TEXT[], $4::TEXT[]) AS s (link_id, title, url, body)
			WHERE d.link_id = s.link_id`, ids, titles, urls, bodies)
		if err != nil {
			return fmt.Errorf("store stems: %w", err)
		}
		after = ids[len(ids)-1]
	}
}

// withCreateRace runs a CREATE ... IF NOT EXISTS, retrying once more when a
// concurrent session created the same object between PostgreSQL's check and
// its insert into the catalog (unique_violation, duplicate_table, or
// duplicate_object for the table's row type).
func withCreateRace(ctx context.Context, op func(ctx context.Context) error) error {
	var err error
	for range 3 {
		err = pgretry.Conflicts(ctx, op)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || (pgErr.Code != "23505" && pgErr.Code != "42P07" && pgErr.Code != "42710") {
			return err
		}
	}
	return err
}

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
	"github.com/jackc/pgx/v5/pgtype"
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
	6: fillVectors,
}

// fillVectors computes the vectors of the documents and anchor texts of
// before, a few hundred at a time in LinkID order, each in the language
// of its document (the stems of a document stored before languages were
// kept are English), and then indexes them.
//
// It runs right after 0006, so always on a table without the headings
// of 0007, even when an index is migrated past both at once: the
// documents it reads have none.
func fillVectors(ctx context.Context, tx pgx.Tx) error {
	v := newVectors()
	err := refill(ctx, tx, `SELECT link_id, title, url_terms, content, lang FROM textindex_documents
		WHERE indexed AND link_id > $1 ORDER BY link_id LIMIT 500`,
		`UPDATE textindex_documents d SET tsv = s.tsv, stems = s.stems`,
		func(cols []string) (pgtype.TSVector, pgtype.TSVector) {
			return v.document(cols[0], cols[1], "", cols[2], terms.StemmerFor(cols[3]))
		})
	if err != nil {
		return fmt.Errorf("documents: %w", err)
	}
	err = refill(ctx, tx, `SELECT a.link_id, a.texts, coalesce(d.lang, '') FROM textindex_anchors a
		LEFT JOIN textindex_documents d ON d.link_id = a.link_id
		WHERE a.link_id > $1 ORDER BY a.link_id LIMIT 500`,
		`UPDATE textindex_anchors d SET tsv = s.tsv, stems = s.stems`,
		func(cols []string) (pgtype.TSVector, pgtype.TSVector) {
			return v.text(cols[0], terms.StemmerFor(cols[1]))
		})
	if err != nil {
		return fmt.Errorf("anchor texts: %w", err)
	}
	_, err = tx.Exec(ctx, `
		CREATE INDEX textindex_documents_tsv_idx ON textindex_documents USING GIN (tsv);
		CREATE INDEX textindex_documents_stems_idx ON textindex_documents USING GIN (stems);
		CREATE INDEX textindex_anchors_tsv_idx ON textindex_anchors USING GIN (tsv);
		CREATE INDEX textindex_anchors_stems_idx ON textindex_anchors USING GIN (stems)`)
	if err != nil {
		return fmt.Errorf("index vectors: %w", err)
	}
	return nil
}

// refill sets the tsv and stems of every row that query reads (a page of
// rows after the LinkID $1: the ID, then text columns) to what vectors
// makes of its text columns, with update (SET ... from s, a row of
// link_id, tsv and stems; the WHERE is added here).
func refill(ctx context.Context, tx pgx.Tx, query, update string,
	vectors func(cols []string) (exact, stems pgtype.TSVector)) error {
	var after [16]byte // the nil UUID sorts first
	for {
		rows, err := tx.Query(ctx, query, after)
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		var (
			ids          [][16]byte
			exact, stems []pgtype.TSVector
		)
		for rows.Next() {
			var id [16]byte
			cols := make([]string, len(rows.FieldDescriptions())-1)
			dst := []any{&id}
			for n := range cols {
				dst = append(dst, &cols[n])
			}
			if err := rows.Scan(dst...); err != nil {
				rows.Close()
				return fmt.Errorf("read: %w", err)
			}
			e, s := vectors(cols)
			ids, exact, stems = append(ids, id), append(exact, e), append(stems, s)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read: %w", err)
		}
		if len(ids) == 0 {
			return nil
		}
		_, err = tx.Exec(ctx, update+`
			FROM unnest($1::UUID[], $2::TSVECTOR[], $3::TSVECTOR[]) AS s (link_id, tsv, stems)
			WHERE d.link_id = s.link_id`, ids, exact, stems)
		if err != nil {
			return fmt.Errorf("store: %w", err)
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

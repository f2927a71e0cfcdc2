package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/linksrus/linksrus/internal/pgretry"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrationLockKey is the PostgreSQL advisory lock that serialises
// processes migrating the same database ("linksrus" in ASCII).
const migrationLockKey = 0x6c696e6b73727573

type migration struct {
	version int
	name    string
	sql     string
}

// lockFirst holds, by migration version, a statement run in the
// migration's transaction before the migration.
var lockFirst = map[int]string{
	// Migration 0005 copies the edges, then drops their table. Under
	// PostgreSQL's READ COMMITTED, edges that a process of an older
	// version still crawling commits after the copy began would be lost:
	// the lock makes its writes wait for the migration, and then fail, as
	// the table is gone.
	5: "LOCK TABLE edges IN EXCLUSIVE MODE",
}

// loadMigrations returns the embedded migrations in version order; each file
// is named NNNN_description.sql.
func loadMigrations() ([]migration, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive version number and '_'", name)
		}
		b, err := migrations.ReadFile(name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: base, sql: string(b)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	return out, nil
}

// migrate applies the migrations the database lacks. Every migration is
// written with IF NOT EXISTS, and the whole run holds a transaction-scoped
// advisory lock, so processes opening the same database at once neither
// fail nor apply anything twice.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	return pgretry.Conflicts(ctx, func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLockKey)); err != nil {
				return fmt.Errorf("take migration lock: %w", err)
			}
			if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS linkgraph_schema_migrations (
				version    INT         PRIMARY KEY,
				applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
			)`); err != nil {
				return fmt.Errorf("create migrations table: %w", err)
			}
			rows, err := tx.Query(ctx, "SELECT version FROM linkgraph_schema_migrations")
			if err != nil {
				return fmt.Errorf("read applied migrations: %w", err)
			}
			applied, err := pgx.CollectRows(rows, pgx.RowTo[int32])
			if err != nil {
				return fmt.Errorf("read applied migrations: %w", err)
			}
			for _, m := range ms {
				if slices.Contains(applied, int32(m.version)) {
					continue
				}
				if first, ok := lockFirst[m.version]; ok {
					if _, err := tx.Exec(ctx, first); err != nil {
						return fmt.Errorf("apply %s: %w", m.name, err)
					}
				}
				// Exec without arguments uses the simple protocol, which
				// accepts several statements in one string.
				if _, err := tx.Exec(ctx, m.sql, pgx.QueryExecModeSimpleProtocol); err != nil {
					return fmt.Errorf("apply %s: %w", m.name, err)
				}
				if _, err := tx.Exec(ctx,
					"INSERT INTO linkgraph_schema_migrations (version) VALUES ($1) ON CONFLICT (version) DO NOTHING",
					m.version); err != nil {
					return fmt.Errorf("record %s: %w", m.name, err)
				}
			}
			return nil
		})
	})
}

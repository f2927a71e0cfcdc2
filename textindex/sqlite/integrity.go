package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
)

// fullCheckMaxBytes is the largest file whose every table is checked when
// it is opened. Checking the tables reads the whole file (about 1.7 GB/s
// from the page cache here, a few hundred MB/s from an SSD), so up to this
// size it costs well under a second. A larger index checks only its schema
// and the docs table, the pages every search and write reads first; damage
// elsewhere is found by the statement that reads it, which then fails with
// textindex.ErrCorrupt as well (see Index.storeErr), before its
// transaction commits.
var fullCheckMaxBytes int64 = 256 << 20

// checkIntegrity fails with textindex.ErrCorrupt when the file at path is
// damaged. A missing or empty file (a new index) has nothing to check.
//
// It checks the structure of every table and index, each on its own
// (PRAGMA quick_check(table) checks the table and its indexes): every page
// a table or index holds, which in a file without free pages is every
// page. It leaves out what a whole-file PRAGMA quick_check adds, which is
// the cost of the full-text index rather than of the file: FTS5's check
// that its index's records decode and agree (0.68 s of the 1.1 s a whole
// check of the rust documentation's 138 MB index took, where each table on
// its own took 0.08 s in all; it grew with the stems' postings), and the
// accounting of free pages. Records of the full-text index that no longer
// decode fail the statement that reads them (FTS5's SQLITE_CORRUPT_VTAB),
// as any damage beyond the check does in a larger file; `sqlite3 index.db
// "PRAGMA integrity_check"` runs every check there is.
func checkIntegrity(ctx context.Context, db *sql.DB, path string) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() == 0 {
		return nil
	}
	tables := []string{"docs"}
	if fi.Size() <= fullCheckMaxBytes {
		if tables, err = storedTables(ctx, db); err != nil {
			return fmt.Errorf("check integrity: %w", mapCorrupt(path, err))
		}
	}
	for _, t := range tables {
		if err := quickCheck(ctx, db, path, t); err != nil {
			return err
		}
	}
	return nil
}

// storedTables returns the tables that hold pages of their own, the
// schema's first: all but the virtual ones, whose pages are their shadow
// tables'.
func storedTables(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_schema
		WHERE type = 'table' AND rootpage > 0 ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	tables := []string{"sqlite_schema"}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		tables = append(tables, name)
	}
	return tables, rows.Err()
}

// quickCheck runs PRAGMA quick_check on table and its indexes.
func quickCheck(ctx context.Context, db *sql.DB, path, table string) error {
	rows, err := db.QueryContext(ctx, `PRAGMA quick_check(`+quoteIdent(table)+`)`)
	if err != nil {
		return fmt.Errorf("check integrity of %s: %w", table, mapCorrupt(path, err))
	}
	defer rows.Close()
	// quick_check answers "ok", or one row per problem found; the first
	// few say enough.
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("check integrity of %s: %w", table, mapCorrupt(path, err))
		}
		if line != "ok" && len(problems) < 3 {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check integrity of %s: %w", table, mapCorrupt(path, err))
	}
	if len(problems) > 0 {
		return corruptError(path, strings.Join(problems, "; "))
	}
	return nil
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

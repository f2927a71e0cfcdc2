package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
)

// fullCheckMaxBytes is the largest file whose every page is checked when
// it is opened. PRAGMA quick_check reads the whole file (about 1.5 GB/s
// from the page cache here, a few hundred MB/s from an SSD), so up to this
// size it costs well under a second. A larger index checks only its schema
// and the docs table, the pages every search and write reads first; damage
// elsewhere is found by the statement that reads it, which then fails with
// textindex.ErrCorrupt as well (see Index.storeErr), before its
// transaction commits.
var fullCheckMaxBytes int64 = 256 << 20

// checkIntegrity fails with textindex.ErrCorrupt when the file at path is
// damaged. A missing or empty file (a new index) has nothing to check.
func checkIntegrity(ctx context.Context, db *sql.DB, path string) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() == 0 {
		return nil
	}
	check := `PRAGMA quick_check`
	if fi.Size() > fullCheckMaxBytes {
		check = `PRAGMA quick_check(docs)`
	}
	rows, err := db.QueryContext(ctx, check)
	if err != nil {
		return fmt.Errorf("check integrity: %w", mapCorrupt(path, err))
	}
	defer rows.Close()
	// quick_check answers "ok", or one row per problem found; the first
	// few say enough.
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("check integrity: %w", mapCorrupt(path, err))
		}
		if line != "ok" && len(problems) < 3 {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check integrity: %w", mapCorrupt(path, err))
	}
	if len(problems) > 0 {
		return corruptError(path, strings.Join(problems, "; "))
	}
	return nil
}

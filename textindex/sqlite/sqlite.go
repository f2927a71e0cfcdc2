// Package sqlite is the embedded, persistent textindex backend and the
// command-line tool's default: one SQLite file with an FTS5 full-text index,
// through modernc.org/sqlite (pure Go, no cgo).
//
// It was chosen by measurement: on the same 21,633 extracted pages SQLite
// FTS5 indexed about 12,000 documents/s with about 50 MB of extra memory,
// against 1,800 to 3,600 for bleve and 2,900 for bluge.
//
// # URLs
//
// Importing the package registers the "sqlite" scheme with textindex.Open:
//
//	sqlite:///absolute/path/index.db   (three slashes: empty host, absolute path)
//	sqlite:relative/path/index.db      (relative to the working directory)
//
// Missing parent directories are created. The one parameter, ?mode=ro,
// opens an existing index read-only (see Options.ReadOnly).
//
// # Storage
//
// The database runs in WAL mode with synchronous=NORMAL: readers never
// block the writer and a commit does not wait for fsync, so a power loss
// (not a process crash) may lose the last few commits but never corrupts the
// file. Writes go through one connection and are committed in groups
// (see Index.Index); reads run in parallel on a pool of connections. The WAL files (index.db-wal, index.db-shm)
// belong to the index and must be kept next to it.
//
// A file damaged behind SQLite's back (overwritten, truncated, a bad disk)
// is refused when it is opened, with textindex.ErrCorrupt, before anything
// is written: Open (read-only or not) checks the structure of every table
// and index of a file of up to 256 MiB (PRAGMA quick_check of each: well
// under a second), and of the schema and the docs table of a larger one.
// FTS5's own check of its index's records is left to the statements that
// read them (see checkIntegrity). Damage found later by a statement also
// fails with textindex.ErrCorrupt, and its transaction is not committed.
//
// Three tables share one rowid: docs (LinkID and PageRank, small rows),
// bodies (URL, title, headings, content, time) and docs_fts, a contentless
// FTS5 table over the fields that stores only the inverted index, so the
// text is not stored twice. A score recorded for a page not indexed yet is a
// docs row without a bodies or docs_fts row, which no search can reach.
//
// # Ranking
//
// Relevance is FTS5's bm25() (negated so that higher is better) over the
// columns title, url (the URL's path terms), headings and body, weighted
// by the query's textindex.Weights; the score is relevance + the prior of
// PageRank (textindex.Weights.Prior: SQLite's ln), ties broken by LinkID. Ranking and counting run over rowids and the small docs
// rows; only the page of results being returned is joined back to bodies, so
// a broad query does not read the text of every hit.
//
// The tokenizer is FTS5's unicode61 with diacritics kept and letters,
// numbers and marks as token characters, matching textindex.Query's rules.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	driver "modernc.org/sqlite" // also registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/linksrus/linksrus/textindex"
)

func init() {
	textindex.Register("sqlite", func(ctx context.Context, u *url.URL) (textindex.Indexer, error) {
		path, ro, err := pathFromURL(u)
		if err != nil {
			return nil, err
		}
		return Open(ctx, path, Options{ReadOnly: ro})
	})
}

// pathFromURL extracts the database file path from a sqlite URL, and
// whether it asks for a read-only index (?mode=ro).
func pathFromURL(u *url.URL) (path string, readOnly bool, err error) {
	if u.User != nil || u.Host != "" {
		return "", false, fmt.Errorf("sqlite: URL %q has a host; use sqlite:///absolute/path or sqlite:relative/path", u.Redacted())
	}
	switch {
	case u.Fragment != "":
		return "", false, fmt.Errorf("sqlite: URL %q: fragments are not supported", u.Redacted())
	case u.RawQuery == "mode=ro":
		readOnly = true
	case u.RawQuery != "":
		return "", false, fmt.Errorf("sqlite: URL %q: the only parameter is mode=ro", u.Redacted())
	}
	path = u.Path
	if u.Opaque != "" {
		p, err := url.PathUnescape(u.Opaque)
		if err != nil {
			return "", false, fmt.Errorf("sqlite: URL %q: %w", u.Redacted(), err)
		}
		path = p
	}
	if path == "" || path == "/" {
		return "", false, fmt.Errorf("sqlite: URL %q names no file", u.Redacted())
	}
	return path, readOnly, nil
}

var _ textindex.Indexer = (*Index)(nil)

// Index is a textindex.Indexer stored in a SQLite database file.
type Index struct {
	db   *sql.DB // for reads; a pool, so searches run in parallel
	w    *writer // all writes, on one connection of db
	path string  // named in errors
}

// Options tunes Open. The zero value opens the index for reading and
// writing, creating it if need be; the URL form sets ReadOnly with
// ?mode=ro.
type Options struct {
	// ReadOnly opens an existing index for searching only; its writes
	// fail with ErrReadOnly. Nothing is created or migrated, so it works
	// while another process (a crawl) writes to the index, and on a
	// directory or file it may not write to.
	//
	// A reader of a WAL database needs to write its shared-memory file
	// (index.db-shm) when the directory allows. In a directory it may not
	// write to, with no write-ahead log left (a crawl that ended normally
	// checkpoints and removes it), the file is opened as immutable, which
	// needs no shared memory; with a log present (a writer, perhaps
	// another user, may be at work) it is read through the existing -shm
	// file, which SQLite allows read-only.
	ReadOnly bool
}

// Open opens the index in the SQLite file at path: unless opts.ReadOnly,
// it creates the file if need be and brings its schema up to date.
// Several processes may open the same file; writes are then serialised by
// SQLite's lock, waiting up to busyTimeout. ctx bounds the opening only
// (the integrity check and the migrations); the Index does not keep it.
func Open(ctx context.Context, path string, opts Options) (*Index, error) {
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlite: open %q: file names with '?' or '#' are not supported", path)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	if err := registerFuncs(); err != nil {
		return nil, fmt.Errorf("sqlite: open %q: register SQL functions: %w", path, err)
	}
	if opts.ReadOnly {
		return openReadOnly(ctx, path)
	}
	return openReadWrite(ctx, path)
}

func openReadWrite(ctx context.Context, path string) (*Index, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("sqlite: open %q: create parent directory: %w", path, err)
	}
	dsn := path + "?_pragma=busy_timeout(" + busyTimeoutMillis + ")&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	// Readers run in parallel on their own connections; a few more than
	// the CPUs keeps the writer's connection from starving them.
	db.SetMaxOpenConns(runtime.GOMAXPROCS(0) + 2)
	db.SetMaxIdleConns(runtime.GOMAXPROCS(0) + 2)
	// Checked before anything is written: a crawl must not add pages to a
	// damaged file (and mark them crawled in the graph) only to fail
	// later, or not at all where the damage lies in pages it never reads.
	if err := checkIntegrity(ctx, db, path); err != nil {
		return nil, errors.Join(fmt.Errorf("sqlite: open %q: %w", path, err), db.Close())
	}
	if err := migrate(ctx, db); err != nil {
		return nil, errors.Join(fmt.Errorf("sqlite: open %q: %w", path, mapCorrupt(path, err)), db.Close())
	}
	w, err := newWriter(ctx, db)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("sqlite: open %q: %w", path, mapCorrupt(path, err)), db.Close())
	}
	return &Index{db: db, w: w, path: path}, nil
}

// ErrReadOnly is returned by the writes of an index opened with
// Options.ReadOnly.
var ErrReadOnly = errors.New("sqlite: the index was opened read-only")

// openReadOnly opens the existing index at path for Options.ReadOnly.
func openReadOnly(ctx context.Context, path string) (*Index, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("sqlite: open %q read-only: %w", path, err)
	}
	params := "mode=ro&_pragma=busy_timeout(" + busyTimeoutMillis + ")"
	if !dirWritable(filepath.Dir(path)) && walEmpty(path) {
		params += "&immutable=1"
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+params)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %q read-only: %w", path, err)
	}
	db.SetMaxOpenConns(runtime.GOMAXPROCS(0) + 2)
	db.SetMaxIdleConns(runtime.GOMAXPROCS(0) + 2)
	if err := checkIntegrity(ctx, db, path); err != nil {
		return nil, errors.Join(fmt.Errorf("sqlite: open %q read-only: %w", path, err), db.Close())
	}
	if err := checkSchema(ctx, db); err != nil {
		return nil, errors.Join(fmt.Errorf("sqlite: open %q read-only: %w", path, mapCorrupt(path, err)), db.Close())
	}
	return &Index{db: db, path: path}, nil
}

// walEmpty reports whether the index at path has no write-ahead log to
// read: none, or an empty one.
func walEmpty(path string) bool {
	fi, err := os.Stat(path + "-wal")
	return err != nil || fi.Size() == 0
}

// dirWritable reports whether files can be created in dir, by trying (a
// variable so that a test running as root can pretend it cannot).
var dirWritable = func(dir string) bool {
	f, err := os.CreateTemp(dir, ".linksrus-probe-*")
	if err != nil {
		return false
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return true
}

// busyTimeoutMillis is how long a statement waits for another process's
// lock on the file before failing with SQLITE_BUSY.
const busyTimeoutMillis = "10000"

// Close closes the database. Iterators still open fail afterwards.
func (i *Index) Close() error {
	if err := errors.Join(i.w.close(), i.db.Close()); err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	return nil
}

// storeErr maps the errors a caller may want to match: database/sql's
// error for a closed pool to textindex.ErrClosed, and SQLite's report of a
// damaged file to textindex.ErrCorrupt, naming the file.
func (i *Index) storeErr(err error) error {
	switch {
	case err == nil:
		return nil
	case strings.Contains(err.Error(), "sql: database is closed"):
		return fmt.Errorf("%w (%w)", textindex.ErrClosed, err)
	}
	return mapCorrupt(i.path, err)
}

// mapCorrupt wraps err in textindex.ErrCorrupt when SQLite found the file
// at path damaged.
func mapCorrupt(path string, err error) error {
	if isCorrupt(err) {
		return corruptError(path, err)
	}
	return err
}

// isCorrupt reports whether err is SQLite's SQLITE_CORRUPT or
// SQLITE_NOTADB, extended codes (FTS5's SQLITE_CORRUPT_VTAB) included.
func isCorrupt(err error) bool {
	var se *driver.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

func corruptError(path string, detail any) error {
	if err, ok := detail.(error); ok {
		return fmt.Errorf("%w: %s: %w", textindex.ErrCorrupt, path, err)
	}
	return fmt.Errorf("%w: %s: %v", textindex.ErrCorrupt, path, detail)
}

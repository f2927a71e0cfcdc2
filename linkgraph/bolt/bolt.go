// Package bolt is the embedded, persistent linkgraph backend and the default
// of the command-line tool: a single bbolt file, no server, safe against the
// process being killed at any moment (every upsert that returned is on disk
// and fsynced; an interrupted one is rolled back as a whole).
//
// It registers the scheme "bolt" with linkgraph.Open. The URL names the
// database file; missing parent directories are created:
//
//	bolt:///var/lib/linksrus/graph.db   absolute path
//	bolt:graph.db                       path relative to the working directory
//	bolt:///tmp/graph.db?nosync=1       skip fsync: several times faster and
//	                                    still safe if the process dies, but a
//	                                    power failure may lose or corrupt data
//	bolt:///var/lib/graph.db?mode=ro    read-only (see Options.ReadOnly)
//
// Only one process may have the file open for writing, and none may read it
// meanwhile; a second Open fails with linkgraph.ErrLocked after a short
// wait (Options.LockTimeout, cut short by its context) instead of blocking.
// Any number of read-only Opens may share the file.
//
// # Layout
//
// Links are one entry each in "links" (ID -> retrievedAt, URL) with the
// index "urls" (URL -> ID). New links get time-ordered IDs (UUIDv7), so
// that links found, and pages crawled, together are stored together.
// Edges are one record per source page in "out"
// (source ID -> its edges sorted by destination ID, 24 bytes each:
// destination, updatedAt; see codec.go), so a page's edges cost one write
// and removing its stale edges one rewrite, and an edge's ID is derived
// from (Src, Dst) instead of stored. "meta" holds the schema version; Open
// migrates a file of an older layout (one entry per edge) in place.
//
// bbolt was chosen over SQLite (modernc.org/sqlite) by measurement on the
// target machine: with an fsync per committed batch it upserted links and
// edges about 1.6x as fast and scanned ID ranges about ten times as fast
// (see ../README.md); SQLite uses about 40% less disk.
package bolt

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/linksrus/linksrus/internal/ctxtime"
	"github.com/linksrus/linksrus/linkgraph"
	bbolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

func init() {
	linkgraph.Register("bolt", func(ctx context.Context, u *url.URL) (linkgraph.Graph, error) {
		path, opts, err := parseURL(u)
		if err != nil {
			return nil, err
		}
		return Open(ctx, path, opts)
	})
}

// Options tunes Open. The zero value is the safe default; the URL form
// sets NoSync and ReadOnly.
type Options struct {
	// NoSync skips fsync on commit. Committed data survives the process
	// being killed but not a power failure or kernel crash.
	NoSync bool
	// LockTimeout is how long Open waits for another process to release
	// the file; zero means one second. The context given to Open may end
	// the wait sooner.
	LockTimeout time.Duration
	// ReadOnly opens an existing file for reading only: nothing is
	// created, migrated or written (writes fail), the file and its
	// directory may be read-only, and other read-only Opens may share
	// it. A file of an older schema must be opened for writing once
	// first.
	ReadOnly bool
}

// schemaVersion is stored in the meta bucket. Open migrates a file of an
// older version (migrate.go) and refuses one of a newer version.
//
//	1  one key per edge, in the bucket "edges" (bucketV1Edges)
//	2  one record per source page, in the bucket "out" (codec.go)
//	3  link records may end in the link's validators (codec.go); no data
//	   changes, but a program of version 2 would read them as part of the
//	   URL, so it must refuse the file
const schemaVersion = 3

var (
	bucketMeta  = []byte("meta")
	bucketLinks = []byte("links") // link ID -> retrievedAt, URL, validators
	bucketURLs  = []byte("urls")  // URL -> link ID
	bucketOut   = []byte("out")   // src ID -> the source's outgoing edges
	keyVersion  = []byte("version")
)

// Graph is a linkgraph.Graph stored in a bbolt file.
type Graph struct {
	db *store
}

var _ linkgraph.Graph = (*Graph)(nil)

// Open opens or creates the graph stored at path. ctx bounds the opening
// only: the wait for another process to release the file and the
// migration of a file of an older layout (which, cut short, goes on from
// where it stopped at the next Open). When ctx ends first, Open fails with
// an error that wraps ctx.Err() (and linkgraph.ErrLocked if it was waiting
// for the file). The returned Graph does not keep ctx.
func Open(ctx context.Context, path string, opts Options) (*Graph, error) {
	if path == "" {
		return nil, errors.New("bolt graph: open: empty path")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bolt graph: open %s: %w", path, err)
	}
	if opts.ReadOnly {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("bolt graph: open %s read-only: %w", path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("bolt graph: open: create directory: %w", err)
	}
	timeout := opts.LockTimeout
	if timeout <= 0 {
		timeout = time.Second
	}
	if err := validate(path); err != nil {
		return nil, fmt.Errorf("bolt graph: open: %w", err)
	}
	db, err := openLocked(ctx, path, opts, timeout)
	if err != nil {
		return nil, err
	}
	st := &store{db: db, path: path}
	if opts.ReadOnly {
		err = st.view(checkSchema)
	} else if err = st.update(initSchema); err == nil {
		err = st.migrate(ctx)
	}
	if err != nil {
		if !st.broken.Load() {
			_ = db.Close()
		}
		return nil, fmt.Errorf("bolt graph: open %s: %w", path, err)
	}
	return &Graph{db: st}, nil
}

// lockPoll is how often Open tries again to lock a file another process
// holds; bbolt's own wait uses the same interval.
const lockPoll = 50 * time.Millisecond

// openLocked opens the bbolt file at path, waiting up to timeout for
// another process to release it. The wait is ours, not bbolt's (whose
// Timeout cannot be interrupted): each attempt asks bbolt to give up at
// once if the file is locked, and between attempts ctx is watched.
func openLocked(ctx context.Context, path string, opts Options, timeout time.Duration) (*bbolt.DB, error) {
	deadline := time.Now().Add(timeout)
	for {
		var db *bbolt.DB
		err := guarded(path, func(any) {}, func() (err error) {
			db, err = bbolt.Open(path, 0o600, &bbolt.Options{
				// The shortest timeout that is not zero (zero waits
				// forever): try the lock once.
				Timeout:  time.Nanosecond,
				NoSync:   opts.NoSync,
				ReadOnly: opts.ReadOnly,
				// The free list is rebuilt from the file on open instead of
				// being written on every commit, which makes commits cheaper.
				NoFreelistSync: true,
				FreelistType:   bbolt.FreelistMapType,
			})
			return err
		})
		switch {
		case err == nil:
			return db, nil
		case errors.Is(err, linkgraph.ErrCorrupt):
			return nil, fmt.Errorf("bolt graph: open: %w", err)
		case !errors.Is(err, bolterrors.ErrTimeout):
			return nil, fmt.Errorf("bolt graph: open %s: %w", path, err)
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, fmt.Errorf("bolt graph: open %s: %w", path, linkgraph.ErrLocked)
		}
		if err := ctxtime.Sleep(ctx, min(lockPoll, left)); err != nil {
			return nil, fmt.Errorf("bolt graph: open %s: %w while waiting: %w", path, err, linkgraph.ErrLocked)
		}
	}
}

func initSchema(tx *bbolt.Tx) error {
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return fmt.Errorf("create meta bucket: %w", err)
	}
	switch v := meta.Get(keyVersion); {
	case len(v) == 1 && v[0] == schemaVersion:
	case v == nil, len(v) == 1 && (v[0] == 1 || v[0] == 2):
		// A new file, or one of version 1 whose edges Open migrates
		// next, or of version 2, which is a valid file of version 3.
		// The version is raised first, so that a program that knows
		// only an older version refuses a file it would half see.
		if err := meta.Put(keyVersion, []byte{schemaVersion}); err != nil {
			return fmt.Errorf("write schema version: %w", err)
		}
	default:
		return fmt.Errorf("unsupported schema version %v (this program knows 1 to %d; the file was written by a newer linksrus, use that)", v, schemaVersion)
	}
	for _, name := range [][]byte{bucketLinks, bucketURLs, bucketOut} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	return nil
}

// checkSchema fails unless the file is of this program's schema version
// with every bucket in place: what a read-only Open needs, since it cannot
// create or migrate anything.
func checkSchema(tx *bbolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return errors.New("not a link graph (no meta bucket)")
	}
	if v := meta.Get(keyVersion); len(v) != 1 || v[0] != schemaVersion {
		return fmt.Errorf("schema version %v, this program reads %d: open it once for writing (a crawl) to migrate it", v, schemaVersion)
	}
	if tx.Bucket(bucketV1Edges) != nil {
		return errors.New("an edge migration is unfinished: open it once for writing (a crawl) to finish it")
	}
	for _, name := range [][]byte{bucketLinks, bucketURLs, bucketOut} {
		if tx.Bucket(name) == nil {
			return fmt.Errorf("bucket %s is missing", name)
		}
	}
	return nil
}

// parseURL turns "bolt:///abs/path?nosync=1" or "bolt:rel/path" into a path
// and options.
func parseURL(u *url.URL) (string, Options, error) {
	var opts Options
	path := u.Path
	if u.Opaque != "" {
		path = u.Opaque
	}
	if u.Host != "" {
		return "", opts, fmt.Errorf("bolt URL %q has a host; want bolt:///absolute/path or bolt:relative/path", u.Redacted())
	}
	if path == "" || path == "/" {
		return "", opts, fmt.Errorf("bolt URL %q names no file; want bolt:///absolute/path or bolt:relative/path", u.Redacted())
	}
	for k, v := range u.Query() {
		switch k {
		case "nosync":
			switch v[len(v)-1] {
			case "1", "true":
				opts.NoSync = true
			case "0", "false":
			default:
				return "", opts, fmt.Errorf("bolt URL: nosync=%q, want 1, true, 0 or false", v[len(v)-1])
			}
		case "mode":
			switch v[len(v)-1] {
			case "ro":
				opts.ReadOnly = true
			case "rw":
			default:
				return "", opts, fmt.Errorf("bolt URL: mode=%q, want ro or rw", v[len(v)-1])
			}
		default:
			return "", opts, fmt.Errorf("bolt URL: unknown option %q (known: nosync, mode)", k)
		}
	}
	return filepath.Clean(path), opts, nil
}

// Close closes the database file. It waits for running transactions; open
// iterators hold none between pages.
func (g *Graph) Close() error {
	if g.db.broken.Load() {
		// A transaction cut short by the damage may hold bbolt's lock;
		// closing would wait for it forever.
		return nil
	}
	if err := g.db.db.Close(); err != nil {
		return fmt.Errorf("bolt graph: close: %w", err)
	}
	return nil
}

// Path returns the database file's path.
func (g *Graph) Path() string { return g.db.path }

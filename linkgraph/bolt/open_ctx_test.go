package bolt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/linksrus/linksrus/linkgraph"
)

// A context that is already done opens nothing and creates nothing.
func TestOpenCanceledContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "graph.db")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	g, err := Open(ctx, path, Options{})
	if !errors.Is(err, context.Canceled) {
		if g != nil {
			g.Close()
		}
		t.Fatalf("Open with a canceled context: %v, want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open with a canceled context created %s (stat: %v)", filepath.Dir(path), err)
	}
}

// holdFile opens path for writing and keeps it locked until the test ends
// or release is called.
func holdFile(t *testing.T, path string) (release func()) {
	t.Helper()
	g, err := Open(t.Context(), path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	var once atomic.Bool
	release = func() {
		if once.CompareAndSwap(false, true) {
			if err := g.Close(); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(release)
	return release
}

// The wait for another process's lock ends with the context, long before
// LockTimeout, and the error says both why (the context) and what it was
// waiting for (linkgraph.ErrLocked). Nothing of the attempt keeps the
// file: once the holder lets go, the next Open succeeds at once.
func TestOpenLockWaitEndsWithContext(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctx  func(context.Context) (context.Context, context.CancelFunc)
		want error
	}{
		{"deadline", func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, 150*time.Millisecond)
		}, context.DeadlineExceeded},
		{"cancel", func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(150*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, ro := range []bool{false, true} {
				path := filepath.Join(t.TempDir(), "graph.db")
				release := holdFile(t, path)
				ctx, cancel := tc.ctx(t.Context())
				start := time.Now()
				g, err := Open(ctx, path, Options{ReadOnly: ro, LockTimeout: time.Minute})
				elapsed := time.Since(start)
				cancel()
				if g != nil {
					g.Close()
				}
				if !errors.Is(err, tc.want) || !errors.Is(err, linkgraph.ErrLocked) {
					t.Fatalf("read-only %v: Open of a held file: %v, want %v and ErrLocked", ro, err, tc.want)
				}
				if elapsed > 5*time.Second {
					t.Fatalf("read-only %v: Open took %v after its context ended at 150ms", ro, elapsed)
				}
				release()
				g, err = Open(t.Context(), path, Options{ReadOnly: ro, LockTimeout: time.Nanosecond})
				if err != nil {
					t.Fatalf("read-only %v: Open after the holder closed: %v", ro, err)
				}
				if err := g.Close(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// Open waits for a holder that lets go within LockTimeout and then opens
// the file.
func TestOpenWaitsForLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graph.db")
	release := holdFile(t, path)
	time.AfterFunc(200*time.Millisecond, release)
	start := time.Now()
	g, err := Open(t.Context(), path, Options{LockTimeout: time.Minute})
	if err != nil {
		t.Fatalf("Open while the holder lets go: %v", err)
	}
	defer g.Close()
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Fatalf("Open returned after %v, before the holder let go", d)
	}
}

// countdownCtx is a context whose Err turns to context.Canceled after it
// has answered nil n times, to end a migration part way.
type countdownCtx struct {
	context.Context
	n atomic.Int64
}

func (c *countdownCtx) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// A migration stops between transactions when the context ends; the file
// is left half migrated, as after a crash, and the next Open finishes it.
func TestMigrateStopsWithContext(t *testing.T) {
	setMigrateBatch(t, 7)
	path := filepath.Join(t.TempDir(), "graph.db")
	edges := writeV1File(t, path, 200, 12)
	ctx := &countdownCtx{Context: t.Context()}
	ctx.n.Store(3)
	g, err := Open(ctx, path, Options{NoSync: true})
	if err == nil {
		g.Close()
		t.Fatal("Open migrated all the edges after its context ended")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Open whose context ended while migrating: %v, want context.Canceled", err)
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketV1Edges) == nil || tx.Bucket(bucketMeta).Get(keyMigrated) == nil {
			t.Error("the stopped migration left no unfinished state: did it run at all, or to the end?")
		}
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	checkMigrated(t, path, edges)
}

// Open has the shape every storing backend's constructor shares (see the
// linkgraph package documentation).
var _ func(context.Context, string, Options) (*Graph, error) = Open

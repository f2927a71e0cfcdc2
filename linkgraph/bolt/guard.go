package bolt

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync/atomic"

	"go.etcd.io/bbolt"

	"github.com/linksrus/linksrus/linkgraph"
)

// store is the bbolt database with a guard around every access. bbolt
// trusts its file: a damaged page makes it panic (an index out of range, an
// invalid page type), and since the file is read through a memory map, a
// pointer read from garbage can fault. Both must reach the caller as an
// error, not take the process down: every transaction runs with
// debug.SetPanicOnFault and a recover, and turns either into an error
// wrapping linkgraph.ErrCorrupt. After one, the store is marked broken:
// later calls fail at once, and Close does not wait for a lock the
// interrupted transaction may still hold.
type store struct {
	db     *bbolt.DB
	path   string
	broken atomic.Bool
}

func (s *store) view(fn func(*bbolt.Tx) error) error {
	return s.guard(func() error { return s.db.View(fn) })
}

func (s *store) update(fn func(*bbolt.Tx) error) error {
	return s.guard(func() error { return s.db.Update(fn) })
}

// guard runs f, turning a panic or a fault into an ErrCorrupt error.
func (s *store) guard(f func() error) (err error) {
	if s.broken.Load() {
		return corruptError(s.path, "an earlier operation found it damaged")
	}
	return guarded(s.path, func(v any) { s.broken.Store(true) }, f)
}

// guarded runs f with faults turned into panics, and a panic into an
// ErrCorrupt error after calling broken with the panic value.
func guarded(path string, broken func(v any), f func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if v := recover(); v != nil {
			broken(v)
			err = corruptError(path, v)
		}
	}()
	return f()
}

// validate checks the structure of the file at path (walkFile) before
// bbolt opens it for writing. Opening rebuilds the free list by walking
// every page in a goroutine of bbolt's own, where damage makes it panic
// beyond any recover (the walk reports a broken invariant by panicking in
// the opening goroutine, which the guard recovers, but its helper goroutine
// goes on reading the file as it is unmapped). The walk here checks the
// same invariants first, and costs about as much as that walk, which every
// open makes anyway.
func validate(path string) error {
	if _, err := os.Stat(path); err != nil {
		return nil // created by the real open
	}
	if err := walkFile(path); err != nil {
		return corruptError(path, err)
	}
	return nil
}

func corruptError(path string, detail any) error {
	return fmt.Errorf("%w: %s: %v; move it away to start again", linkgraph.ErrCorrupt, path, detail)
}

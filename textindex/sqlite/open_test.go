package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A context that is already done opens nothing and creates nothing, for
// writing or for reading.
func TestOpenCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	dir := t.TempDir()
	existing := filepath.Join(dir, "index.db")
	idx, err := Open(t.Context(), existing, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		opts Options
	}{
		{filepath.Join(dir, "sub", "index.db"), Options{}},
		{existing, Options{ReadOnly: true}},
	} {
		idx, err := Open(ctx, tc.path, tc.opts)
		if !errors.Is(err, context.Canceled) {
			if idx != nil {
				idx.Close()
			}
			t.Fatalf("Open(%s, %+v) with a canceled context: %v, want context.Canceled", tc.path, tc.opts, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sub")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open with a canceled context created a directory (stat: %v)", err)
	}
}

// Open has the shape every storing backend's constructor shares (see the
// textindex package documentation).
var _ func(context.Context, string, Options) (*Index, error) = Open

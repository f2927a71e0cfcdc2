package bolt_test

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpenCorrupt writes the fuzzer's bytes over a small graph.db at the
// fuzzer's offset and uses the result: errors are fine, a panic or a fault
// is not.
func FuzzOpenCorrupt(f *testing.F) {
	data := buildGraphFile(f, filepath.Join(f.TempDir(), "clean.db"), 400)
	f.Add(uint32(4096*2+20), []byte{0xff, 0xff})
	f.Add(uint32(4096*3+8), []byte{0x10})
	f.Add(uint32(16), []byte("garbage in the meta page"))
	f.Fuzz(func(t *testing.T, off uint32, garbage []byte) {
		b := append([]byte(nil), data...)
		copy(b[int(off)%len(b):], garbage)
		path := filepath.Join(t.TempDir(), "graph.db")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		useDamaged(t, path)
	})
}

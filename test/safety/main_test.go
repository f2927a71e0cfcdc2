package safety

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// binDir holds the linksrus binary, built on first use so that a fuzz run
// or a single in-process test does not pay for the build.
var (
	binDir   string
	binOnce  sync.Once
	binPath  string
	binError error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "linksrus-safety")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// linksrusBinary builds cmd/linksrus once and returns its path.
func linksrusBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binPath = filepath.Join(binDir, "linksrus")
		build := exec.Command("go", "build", "-o", binPath, "github.com/linksrus/linksrus/cmd/linksrus")
		out, err := build.CombinedOutput()
		if err != nil {
			binError = fmt.Errorf("build linksrus: %v\n%s", err, out)
		}
	})
	if binError != nil {
		t.Fatal(binError)
	}
	return binPath
}

// Package chromium finds the Chromium browser that tests drive (and that
// .ci/run installs from Debian's chromium package).
package chromium

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

// Names are the commands tried, in order.
var Names = []string{"chromium", "chromium-browser", "google-chrome"}

// ErrNotFound is returned by Path when none of Names is in PATH.
var ErrNotFound = errors.New("chromium: no chromium in PATH (apt-get install -y chromium)")

// Path returns the first of Names found in PATH.
func Path() (string, error) {
	for _, name := range Names {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNotFound
}

// ForTest returns the browser's path for a test that drives it: without
// one, the test is skipped, or fails under CI (the CI environment
// variable set), where .ci/run installs it.
func ForTest(t testing.TB) string {
	t.Helper()
	p, err := Path()
	if err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%v: .ci/run installs it", err)
	}
	t.Skip(err)
	return ""
}

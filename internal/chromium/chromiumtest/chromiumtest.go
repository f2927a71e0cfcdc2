// Package chromiumtest gives tests the browser they drive, and what they
// watch it with (its processes, the connections a listener gets), apart
// from package chromium so that the programs that render pages do not
// link package testing.
package chromiumtest

import (
	"os"
	"testing"

	"github.com/linksrus/linksrus/internal/chromium"
)

// ForTest returns the browser's path for a test that drives it: without
// one, the test is skipped, or fails under CI (the CI environment
// variable set), where .ci/run installs it.
func ForTest(t testing.TB) string {
	t.Helper()
	p, err := chromium.Path()
	if err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%v: .ci/run installs it", err)
	}
	t.Skip(err)
	return ""
}

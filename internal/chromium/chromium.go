// Package chromium finds the Chromium browser that package render and the
// browser tests drive (.ci/run installs Debian's chromium package);
// chromiumtest gives it to tests.
package chromium

import (
	"errors"
	"os/exec"
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

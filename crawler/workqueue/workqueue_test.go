package workqueue_test

import (
	"testing"

	"github.com/linksrus/linksrus/crawler/robots"
)

// TestRobotsBasisStored pins the numbers a Robots.Basis is stored as: a
// shared database outlives the processes that wrote it, so a process of a
// newer version must read the decisions of an older one as they were made.
func TestRobotsBasisStored(t *testing.T) {
	for _, c := range []struct {
		basis robots.Basis
		want  uint8
	}{
		{robots.BasisRules, 0},
		{robots.BasisUnavailable, 2},
		{robots.BasisUnreachable, 3},
	} {
		if uint8(c.basis) != c.want {
			t.Errorf("%v is stored as %d, was %d", c.basis, uint8(c.basis), c.want)
		}
	}
}

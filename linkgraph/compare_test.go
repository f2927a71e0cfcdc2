package linkgraph_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
)

func TestCompareIDs(t *testing.T) {
	lowFirst := uuid.UUID{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	highFirst := uuid.UUID{0x80}
	lastByte := uuid.UUID{15: 1}
	for _, c := range []struct {
		name string
		a, b uuid.UUID
		want int
	}{
		{"equal", highFirst, highFirst, 0},
		{"nil is first", uuid.Nil, lastByte, -1},
		{"max is last", uuid.Max, highFirst, +1},
		{"the first differing byte decides", lowFirst, highFirst, -1},
		// A comparison of signed bytes, or of the UUID's fields as
		// signed integers, would put 0x80 before 0x7f.
		{"bytes are unsigned", highFirst, lowFirst, +1},
		{"the last byte counts", lastByte, uuid.Nil, +1},
	} {
		if got := linkgraph.CompareIDs(c.a, c.b); got != c.want {
			t.Errorf("%s: CompareIDs(%s, %s) = %d, want %d", c.name, c.a, c.b, got, c.want)
		}
	}
}

// The order is the one of the IDs' canonical text (lowercase hex digits in
// byte order), which PostgreSQL's uuid type also follows.
func TestCompareIDsIsTextOrder(t *testing.T) {
	ids := make([]uuid.UUID, 200)
	for i := range ids {
		ids[i] = uuid.New()
	}
	ids = append(ids, uuid.Nil, uuid.Max)
	for _, a := range ids {
		for _, b := range ids {
			if got, want := linkgraph.CompareIDs(a, b), strings.Compare(a.String(), b.String()); got != want {
				t.Fatalf("CompareIDs(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
}

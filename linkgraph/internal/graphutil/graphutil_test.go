package graphutil

import (
	"errors"
	"hash/fnv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestTimestampRoundsUpToMicroseconds(t *testing.T) {
	local := time.FixedZone("X", 3600)
	in := time.Date(2025, 1, 1, 1, 0, 0, 1001, local)
	got := Timestamp(in)
	if want := time.Date(2025, 1, 1, 0, 0, 0, 2000, time.UTC); !got.Equal(want) || got.Location() != time.UTC {
		t.Fatalf("Timestamp(%v) = %v, want %v UTC", in, got, want)
	}
	whole := time.Date(2025, 1, 1, 0, 0, 0, 3000, time.UTC)
	if got := Timestamp(whole); !got.Equal(whole) {
		t.Fatalf("Timestamp(%v) = %v, want it unchanged", whole, got)
	}
	if !Timestamp(time.Time{}).IsZero() {
		t.Fatalf("Timestamp(zero) is not zero")
	}
	// Pre-epoch times round towards the future too.
	pre := time.Date(1969, 12, 31, 23, 59, 59, 999999500, time.UTC)
	if got := Timestamp(pre); !got.Equal(time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("Timestamp(%v) = %v", pre, got)
	}
	// No monotonic reading: stored times compare by the wall clock alone.
	if now := Timestamp(time.Now()); now != now.Round(0) {
		t.Fatalf("Timestamp(time.Now()) kept its monotonic reading")
	}
}

// TestClockStampsBetweenReadings is the contract the Clock keeps: a stamp
// is not before a clock reading made before the call and is before one
// made after Settle, for the graph's own stamp and for a caller's
// time.Now read just before the call alike.
func TestClockStampsBetweenReadings(t *testing.T) {
	for range 2000 {
		before := time.Now()
		retrieved := time.Now() // a caller's time, read before the call
		c := NewClock()         // the call begins
		own := c.StampOrNow(time.Time{})
		callers := c.Stamp(retrieved)
		c.Settle()
		after := time.Now()
		for _, s := range []time.Time{own, callers} {
			if s.Before(before) || !s.Before(after) {
				t.Fatalf("stamp %v, want in [%v, %v)", s, before, after)
			}
		}
	}
}

// TestClockWaitsOnlyForTheCurrentMicrosecond: Settle has nothing to wait
// for unless the call stored a time the clock may not have passed.
func TestClockWaitsOnlyForTheCurrentMicrosecond(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 1500, time.UTC)
	for _, tc := range []struct {
		name string
		at   time.Time
		wait bool
	}{
		{"zero (never retrieved)", time.Time{}, false},
		{"an earlier microsecond", start.Add(-time.Microsecond), false},
		{"the microsecond's start", start.Truncate(time.Microsecond), false},
		{"within the call's microsecond", start.Add(-400 * time.Nanosecond), true},
		{"the future", start.Add(time.Hour), false},
	} {
		c := clockAt(start)
		c.Stamp(tc.at)
		if c.wait != tc.wait {
			t.Errorf("Stamp(%s): wait = %v, want %v", tc.name, c.wait, tc.wait)
		}
	}
	c := clockAt(start)
	if got := c.StampOrNow(time.Time{}); !got.Equal(time.Date(2025, 1, 1, 0, 0, 0, 2000, time.UTC)) || !c.wait {
		t.Errorf("StampOrNow(zero) = %v (wait %v), want the call's start rounded up, waited for", got, c.wait)
	}
	// A clock whose stamp is long past returns at once.
	c = clockAt(time.Now().Add(-time.Hour))
	c.StampOrNow(time.Time{})
	c.Settle()
}

func TestRanges(t *testing.T) {
	lo, mid, hi := uuid.UUID{0x10}, uuid.UUID{0x80}, uuid.UUID{0xf0}
	for _, tc := range []struct {
		id, from, to uuid.UUID
		want         bool
	}{
		{mid, lo, hi, true},
		{lo, lo, hi, true},
		{hi, lo, hi, false},
		{uuid.Max, lo, uuid.Nil, true},
		{uuid.Nil, uuid.Nil, uuid.Nil, true},
		{lo, mid, hi, false},
	} {
		if got := InRange(tc.id, tc.from, tc.to); got != tc.want {
			t.Errorf("InRange(%s, %s, %s) = %v", tc.id, tc.from, tc.to, got)
		}
	}
	if !EmptyRange(hi, lo) || !EmptyRange(mid, mid) || EmptyRange(mid, uuid.Nil) || EmptyRange(uuid.Nil, uuid.Nil) {
		t.Fatal("EmptyRange misjudged a range")
	}
}

func TestDedupLinks(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	b, err := DedupLinks([]*linkgraph.Link{
		{URL: "a", RetrievedAt: t0},
		{URL: "b"},
		{URL: "a", RetrievedAt: t0.Add(time.Hour)},
		{URL: "a"},
	}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	if len(b.URLs) != 2 || b.URLs[0] != "a" || !b.RetrievedAt[0].Equal(t0.Add(time.Hour)) {
		t.Fatalf("DedupLinks = %+v", b)
	}
	if want := []int{0, 1, 0, 0}; len(b.Index) != 4 || b.Index[0] != want[0] || b.Index[1] != want[1] || b.Index[2] != want[2] || b.Index[3] != want[3] {
		t.Fatalf("Index = %v, want %v", b.Index, want)
	}
	if _, err := DedupLinks([]*linkgraph.Link{{URL: "ok"}, nil}, NewClock()); !errors.Is(err, linkgraph.ErrInvalidLink) {
		t.Fatalf("DedupLinks with nil = %v, want ErrInvalidLink", err)
	}
}

func TestDedupEdgesStampsZeroTimes(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 1500, time.UTC)
	a, b := uuid.New(), uuid.New()
	eb, err := DedupEdges([]*linkgraph.Edge{{Src: a, Dst: b}, {Src: b, Dst: a, UpdatedAt: now.Add(-time.Hour)}, {Src: a, Dst: b, UpdatedAt: now.Add(-time.Hour)}}, clockAt(now))
	if err != nil {
		t.Fatal(err)
	}
	if len(eb.Keys) != 2 || !eb.UpdatedAt[0].Equal(Timestamp(now)) || !eb.UpdatedAt[1].Equal(Timestamp(now.Add(-time.Hour))) {
		t.Fatalf("DedupEdges = %+v", eb)
	}
	if _, err := DedupEdges([]*linkgraph.Edge{nil}, clockAt(now)); !errors.Is(err, linkgraph.ErrUnknownEdgeLinks) {
		t.Fatalf("DedupEdges with nil = %v, want ErrUnknownEdgeLinks", err)
	}
}

func TestEdgeIDIsFNV1a128(t *testing.T) {
	for range 100 {
		src, dst := uuid.New(), uuid.New()
		h := fnv.New128a()
		h.Write(src[:])
		h.Write(dst[:])
		var want uuid.UUID
		h.Sum(want[:0])
		want[6] = want[6]&0x0f | 0x80
		want[8] = want[8]&0x3f | 0x80
		if got := EdgeID(src, dst); got != want {
			t.Fatalf("EdgeID(%s, %s) = %s, want %s", src, dst, got, want)
		}
		if EdgeID(src, dst) == EdgeID(dst, src) {
			t.Fatal("EdgeID is symmetric")
		}
		if v := EdgeID(src, dst).Version(); v != 8 {
			t.Fatalf("version %d, want 8", v)
		}
	}
	if n := testing.AllocsPerRun(100, func() { EdgeID(uuid.Nil, uuid.Max) }); n != 0 {
		t.Errorf("EdgeID allocates %v times", n)
	}
}

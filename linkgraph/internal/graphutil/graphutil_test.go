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

func TestTimestampFloorsToMicroseconds(t *testing.T) {
	local := time.FixedZone("X", 3600)
	in := time.Date(2025, 1, 1, 1, 0, 0, 1999, local)
	got := Timestamp(in)
	if want := time.Date(2025, 1, 1, 0, 0, 0, 1000, time.UTC); !got.Equal(want) || got.Location() != time.UTC {
		t.Fatalf("Timestamp(%v) = %v, want %v UTC", in, got, want)
	}
	if !Timestamp(time.Time{}).IsZero() {
		t.Fatalf("Timestamp(zero) is not zero")
	}
	// Pre-epoch times round towards the past too, like pgx's encoding.
	pre := time.Date(1969, 12, 31, 23, 59, 59, 999999500, time.UTC)
	if got := Timestamp(pre); !got.Equal(time.Date(1969, 12, 31, 23, 59, 59, 999999000, time.UTC)) {
		t.Fatalf("Timestamp(%v) = %v", pre, got)
	}
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
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.URLs) != 2 || b.URLs[0] != "a" || !b.RetrievedAt[0].Equal(t0.Add(time.Hour)) {
		t.Fatalf("DedupLinks = %+v", b)
	}
	if want := []int{0, 1, 0, 0}; len(b.Index) != 4 || b.Index[0] != want[0] || b.Index[1] != want[1] || b.Index[2] != want[2] || b.Index[3] != want[3] {
		t.Fatalf("Index = %v, want %v", b.Index, want)
	}
	if _, err := DedupLinks([]*linkgraph.Link{{URL: "ok"}, nil}); !errors.Is(err, linkgraph.ErrInvalidLink) {
		t.Fatalf("DedupLinks with nil = %v, want ErrInvalidLink", err)
	}
}

func TestDedupEdgesStampsZeroTimes(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 1500, time.UTC)
	a, b := uuid.New(), uuid.New()
	eb, err := DedupEdges([]*linkgraph.Edge{{Src: a, Dst: b}, {Src: b, Dst: a, UpdatedAt: now.Add(-time.Hour)}, {Src: a, Dst: b, UpdatedAt: now.Add(-time.Hour)}}, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(eb.Keys) != 2 || !eb.UpdatedAt[0].Equal(Timestamp(now)) || !eb.UpdatedAt[1].Equal(now.Add(-time.Hour).Truncate(time.Microsecond)) {
		t.Fatalf("DedupEdges = %+v", eb)
	}
	if _, err := DedupEdges([]*linkgraph.Edge{nil}, now); !errors.Is(err, linkgraph.ErrUnknownEdgeLinks) {
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

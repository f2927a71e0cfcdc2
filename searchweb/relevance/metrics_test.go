package relevance_test

import (
	"math"
	"testing"

	"github.com/linksrus/linksrus/searchweb/relevance"
)

func TestReciprocalRank(t *testing.T) {
	for _, c := range []struct {
		place, k int
		want     float64
	}{
		{1, 10, 1}, {2, 10, 0.5}, {4, 10, 0.25}, {10, 10, 0.1},
		{11, 10, 0}, {0, 10, 0}, {-3, 10, 0}, {3, 2, 0}, {1, 0, 0},
	} {
		if got := relevance.ReciprocalRank(c.place, c.k); got != c.want {
			t.Errorf("ReciprocalRank(%d, %d) = %v, want %v", c.place, c.k, got, c.want)
		}
	}
}

// The figures by hand: places 1, 2, not found, 4, 11 (past the tenth) and
// 3 give reciprocal ranks 1, 1/2, 0, 1/4, 0 and 1/3 at 10: their sum is
// 25/12, their mean 25/72; at 3 the 4 drops out too: (1+1/2+1/3)/6 = 11/36.
func TestMRRAndSuccess(t *testing.T) {
	places := []int{1, 2, 0, 4, 11, 3}
	if got, want := relevance.MRR(places, 10), 25.0/72; math.Abs(got-want) > 1e-12 {
		t.Errorf("MRR@10 = %v, want %v", got, want)
	}
	if got, want := relevance.MRR(places, 3), 11.0/36; math.Abs(got-want) > 1e-12 {
		t.Errorf("MRR@3 = %v, want %v", got, want)
	}
	for k, want := range map[int]int{1: 1, 2: 2, 3: 3, 4: 4, 10: 4, 11: 5, 100: 5} {
		if got := relevance.SuccessAt(places, k); got != want {
			t.Errorf("success@%d = %d, want %d", k, got, want)
		}
	}
	if got := relevance.MRR(nil, 10); got != 0 {
		t.Errorf("MRR of no queries = %v, want 0", got)
	}
	if got := relevance.SuccessAt(nil, 10); got != 0 {
		t.Errorf("success@10 of no queries = %d, want 0", got)
	}
}

func TestSummarize(t *testing.T) {
	s := relevance.Summarize([]int{1, 2, 0, 4, 11, 3})
	want := relevance.Scores{Queries: 6, MRR10: 25.0 / 72, Success1: 1, Success3: 3}
	if s.Queries != want.Queries || s.Success1 != want.Success1 || s.Success3 != want.Success3 || math.Abs(s.MRR10-want.MRR10) > 1e-12 {
		t.Fatalf("Summarize = %+v, want %+v", s, want)
	}
	if got, want := s.String(), "MRR@10 0.347  success@1 1/6  success@3 3/6"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

package memory

import (
	"math/rand/v2"
	"testing"
)

// TestSeek: seek finds the first ordinal not below the one sought, from
// any start, as a linear scan does.
func TestSeek(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		ords := make([]uint32, rng.IntN(100))
		next := uint32(0)
		for n := range ords {
			next += 1 + uint32(rng.IntN(5))
			ords[n] = next
		}
		from := 0
		if len(ords) > 0 {
			from = rng.IntN(len(ords) + 1)
		}
		ord := uint32(rng.IntN(int(next) + 10))
		want := from
		for want < len(ords) && ords[want] < ord {
			want++
		}
		if got := seek(ords, from, ord); got != want {
			t.Fatalf("seek(%v, %d, %d) = %d, want %d", ords, from, ord, got, want)
		}
	}
}

package memory

import (
	"math/rand/v2"
	"slices"
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

// TestCountPhrase holds countPhrase, which reads the positions of a
// phrase's terms, to counting the phrase's runs in each field's terms,
// overlapping runs included and none across two fields.
func TestCountPhrase(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 5000 {
		var fields [numFields][]uint32
		for f := range fields {
			fields[f] = make([]uint32, rng.IntN(12))
			for n := range fields[f] {
				fields[f][n] = uint32(rng.IntN(3))
			}
		}
		phrase := make([]uint32, 1+rng.IntN(3))
		for n := range phrase {
			phrase[n] = uint32(rng.IntN(3))
		}
		var want [numFields]uint32
		for f, terms := range fields {
			for p := 0; p+len(phrase) <= len(terms); p++ {
				if slices.Equal(terms[p:p+len(phrase)], phrase) {
					want[f]++
				}
			}
		}
		occ := occurrences(fields)
		lists := make([][]uint32, len(phrase))
		for n, id := range phrase {
			for _, o := range occ {
				if uint32(o>>32) == id {
					lists[n] = append(lists[n], uint32(o))
				}
			}
		}
		if got := countPhrase(lists); got != want {
			t.Fatalf("phrase %v in %v: %v, want %v", phrase, fields, got, want)
		}
	}
}

package simhash_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/linksrus/linksrus/textindex/simhash"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// article returns n words of generated but fixed prose.
func article(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 0))
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", r.IntN(5000))
	}
	return words
}

func TestSameWordsSameHash(t *testing.T) {
	a := simhash.Of("The Quick brown fox, jumps over the lazy dog.")
	b := simhash.Of("the quick   BROWN fox jumps\nover the lazy dog")
	if a != b {
		t.Fatalf("case, punctuation and spacing changed the hash: %016x vs %016x", a, b)
	}
	if simhash.Of("") != 0 || simhash.Of(" .,; ") != 0 {
		t.Fatal("text without words does not hash to 0")
	}
	if simhash.Of("one") == simhash.Of("two") || simhash.Of("one two") == 0 {
		t.Fatal("short texts are not told apart")
	}
}

func TestSmallEditIsNear(t *testing.T) {
	words := article(1, 1500)
	orig := simhash.Of(strings.Join(words, " "))
	edited := slices.Clone(words)
	edited[700] = "changed"
	near := simhash.Of(strings.Join(edited, " "))
	if d := simhash.Distance(orig, near); d > simhash.Threshold {
		t.Fatalf("one word of 1500 changed: distance %d > %d", d, simhash.Threshold)
	}
	other := simhash.Of(strings.Join(article(2, 1500), " "))
	if d := simhash.Distance(orig, other); d <= 10 {
		t.Fatalf("unrelated texts: distance %d, want far more than %d", d, simhash.Threshold)
	}
	if !simhash.Near(orig, near) || simhash.Near(orig, other) {
		t.Fatal("Near disagrees with Distance")
	}
}

// TestGroupsMatchesAllPairs checks the banded search against comparing
// every pair, on fingerprints built to be near, far and equal.
func TestGroupsMatchesAllPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for round := range 50 {
		var hashes []uint64
		for range 1 + r.IntN(60) {
			switch {
			case len(hashes) > 0 && r.IntN(3) == 0:
				h := hashes[r.IntN(len(hashes))]
				for range r.IntN(6) {
					h ^= 1 << r.IntN(64)
				}
				hashes = append(hashes, h)
			default:
				hashes = append(hashes, r.Uint64())
			}
		}
		threshold := r.IntN(6)
		got := simhash.Groups(hashes, threshold)
		want := allPairs(hashes, threshold)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("round %d, threshold %d: got %v, want %v", round, threshold, got, want)
		}
	}
	if simhash.Groups([]uint64{1, 1}, -1) != nil || simhash.Groups([]uint64{1}, 3) != nil {
		t.Fatal("a negative threshold or a single hash gives groups")
	}
	if g := simhash.Groups([]uint64{0, ^uint64(0)}, 100); g != nil {
		t.Fatalf("threshold 100 (taken as 63) groups 64 bits apart: %v", g)
	}
	if g := simhash.Groups([]uint64{0, ^uint64(1)}, 100); len(g) != 1 {
		t.Fatalf("threshold 100 (taken as 63) does not group 63 bits apart: %v", g)
	}
}

// allPairs is Groups by comparing every pair.
func allPairs(hashes []uint64, threshold int) [][]int {
	group := make([]int, len(hashes))
	for n := range group {
		group[n] = n
	}
	for changed := true; changed; {
		changed = false
		for a := range hashes {
			for b := range hashes {
				if simhash.Distance(hashes[a], hashes[b]) <= threshold && group[b] > group[a] {
					group[b], changed = group[a], true
				}
			}
		}
	}
	var out [][]int
	byRoot := map[int]int{}
	for n, g := range group {
		i, ok := byRoot[g]
		if !ok {
			i = len(out)
			byRoot[g] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], n)
	}
	return slices.DeleteFunc(out, func(g []int) bool { return len(g) < 2 })
}

func BenchmarkOf(b *testing.B) {
	text := strings.Join(article(3, 1500), " ") // about 10 KB, a page's text
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		simhash.Of(text)
	}
}

func BenchmarkGroups(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 9))
	hashes := make([]uint64, 10000)
	for n := range hashes {
		hashes[n] = r.Uint64()
	}
	for b.Loop() {
		simhash.Groups(hashes, simhash.Threshold)
	}
}

// FuzzOf: any bytes hash without a panic, the same twice, and white space
// at the end changes nothing.
func FuzzOf(f *testing.F) {
	for _, s := range []string{"", "a", "a b c d", "\xff\xfe words", "Ünïcödé текст 中文"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h := simhash.Of(s)
		if simhash.Of(s) != h || simhash.Of(s+" \n") != h {
			t.Fatalf("Of(%q) is not stable", s)
		}
	})
}

// Folder folds each fingerprint under the first kept one it is near, and
// keeps the others in order.
func TestFolder(t *testing.T) {
	var f simhash.Folder
	a, b := uint64(0), ^uint64(0)
	for i, c := range []struct {
		fp   uint64
		want int
	}{
		{a, -1},
		{a ^ 0b111, 0}, // 3 bits from a
		{b, -1},
		{b ^ 1, 1},
		{a ^ 0b1111, -1}, // 4 bits from a: a result of its own
		{a ^ 0b11110, 2}, // 1 bit from that one, 4 from a
	} {
		if got := f.Fold(c.fp); got != c.want {
			t.Errorf("fingerprint %d: Fold = %d, want %d", i, got, c.want)
		}
	}
	if simhash.OfPage("Title", "some words here") != simhash.Of("Title\nsome words here") {
		t.Error("OfPage is not the simhash of title and text")
	}
}

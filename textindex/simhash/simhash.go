// Package simhash fingerprints text so that near-duplicate pages (the same
// article with another date, a menu item more, a tracking paragraph) can
// be found without comparing their text: Charikar's simhash, 64 bits, of
// the text's word shingles. Texts that differ little get fingerprints that
// differ in few bits; Distance counts them and Threshold is the number of
// differing bits up to which this module calls two pages near-duplicates.
//
// Words are what textindex searches by (runs of letters, digits and
// marks, compared case-insensitively), so markup, punctuation and white
// space never make two pages differ. Shingles are Shingle consecutive
// words, each hashed with 64-bit FNV-1a (fixed, so a fingerprint means the
// same in every process and version) and weighted equally.
package simhash

import (
	"math/bits"
	"unicode"
	"unicode/utf8"

	"github.com/linksrus/linksrus/textindex/internal/terms"
)

const (
	// Shingle is the number of consecutive words hashed together. Three
	// keeps word order in the fingerprint while one changed word changes
	// only three shingles.
	Shingle = 3
	// Threshold is the largest Distance at which this module calls two
	// fingerprints near-duplicates: 3 of 64 bits, the value Manku, Jain and
	// Das Sarma found to work for web pages ("Detecting near-duplicates for
	// web crawling", WWW 2007).
	Threshold = 3
)

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// Of returns the simhash of text. Text of fewer than Shingle words is
// fingerprinted by the words it has; text without words gets 0.
func Of(text string) uint64 {
	var (
		ones  [64]int32       // shingles with each bit set
		total int32           // shingles
		ring  [Shingle]uint64 // the last words' hashes
		words int
	)
	add := func() {
		h := uint64(fnvOffset)
		for n := range min(words, Shingle) {
			h = (h ^ ring[(words-1-n)%Shingle]) * fnvPrime
		}
		// FNV's low bits mix poorly on short input: finish with a
		// murmur3-style avalanche so that every bit is a fair coin.
		h ^= h >> 33
		h *= 0xff51afd7ed558ccd
		h ^= h >> 33
		h *= 0xc4ceb9fe1a85ec53
		h ^= h >> 33
		// Counting set bits without a branch: a bit is set in the
		// fingerprint when more than half the shingles have it.
		for b := range ones {
			ones[b] += int32(h >> b & 1)
		}
		total++
	}
	h, inWord := uint64(fnvOffset), false
	for i := 0; i < len(text); {
		var term bool
		r := rune(text[i])
		if r < utf8.RuneSelf {
			// ASCII, most of most pages, without the Unicode tables.
			i++
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			term = 'a' <= r && r <= 'z' || '0' <= r && r <= '9'
		} else {
			var size int
			r, size = utf8.DecodeRuneInString(text[i:])
			i += size
			if term = terms.IsTermRune(r); term {
				r = unicode.ToLower(r)
			}
		}
		if term {
			for ; r != 0; r >>= 8 {
				h = (h ^ uint64(r&0xff)) * fnvPrime
			}
			inWord = true
			continue
		}
		if inWord {
			ring[words%Shingle] = h
			words++
			if words >= Shingle {
				add()
			}
			h, inWord = fnvOffset, false
		}
	}
	if inWord {
		ring[words%Shingle] = h
		words++
		if words >= Shingle {
			add()
		}
	}
	if words == 0 {
		return 0
	}
	if words < Shingle {
		add()
	}
	var out uint64
	for b, n := range ones {
		if 2*n > total {
			out |= 1 << b
		}
	}
	return out
}

// OfPage returns the simhash of a page's title and text, the one search
// results and crawl reports compare.
func OfPage(title, content string) uint64 { return Of(title + "\n" + content) }

// Folder keeps the fingerprints of the results shown so far and finds,
// for each next one, the earlier result it is a near-duplicate of, so
// that a list of results folds near-duplicates under the first of them.
// The zero value is ready to use.
type Folder struct{ kept []uint64 }

// Fold returns the position, among the fingerprints Fold kept, of the
// first one fp is Near; or, if there is none, keeps fp and returns -1
// (the caller shows it as a result of its own, the next position).
func (f *Folder) Fold(fp uint64) int {
	for n, k := range f.kept {
		if Near(k, fp) {
			return n
		}
	}
	f.kept = append(f.kept, fp)
	return -1
}

// Distance returns the number of bits in which a and b differ.
func Distance(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// Near reports whether a and b are near-duplicates: Distance at most
// Threshold.
func Near(a, b uint64) bool { return Distance(a, b) <= Threshold }

// Groups returns the groups of near-duplicates among hashes, as indexes
// into hashes: each group holds two or more indexes, ascending, and the
// groups are ordered by their first index. Near-duplication is not
// transitive; a group is a connected component, pages linked by a chain
// of pairs each within threshold bits.
//
// It does not compare every pair: two fingerprints within threshold bits
// agree exactly on at least one of threshold+1 bands of bits (there are
// too few differing bits to touch every band), so only fingerprints
// sharing a band are compared. Equal fingerprints are merged first, so
// many exact copies cost no more than one. A negative threshold finds
// nothing; thresholds above 63 are taken as 63.
func Groups(hashes []uint64, threshold int) [][]int {
	if threshold < 0 || len(hashes) < 2 {
		return nil
	}
	threshold = min(threshold, 63)
	parent := make([]int, len(hashes))
	for n := range parent {
		parent[n] = n
	}
	find := func(n int) int {
		for parent[n] != n {
			parent[n] = parent[parent[n]]
			n = parent[n]
		}
		return n
	}
	union := func(a, b int) {
		if a, b = find(a), find(b); a != b {
			parent[max(a, b)] = min(a, b)
		}
	}
	// One representative per distinct fingerprint.
	first := make(map[uint64]int, len(hashes))
	var distinct []int
	for n, h := range hashes {
		if f, ok := first[h]; ok {
			union(f, n)
			continue
		}
		first[h] = n
		distinct = append(distinct, n)
	}
	bands := threshold + 1
	for b := range bands {
		lo, hi := b*64/bands, (b+1)*64/bands
		mask := uint64(1)<<(hi-lo) - 1
		if hi-lo == 64 {
			mask = ^uint64(0)
		}
		buckets := make(map[uint64][]int)
		for _, n := range distinct {
			key := hashes[n] >> lo & mask
			for _, m := range buckets[key] {
				if Distance(hashes[n], hashes[m]) <= threshold {
					union(n, m)
				}
			}
			buckets[key] = append(buckets[key], n)
		}
	}
	members := make(map[int][]int)
	var roots []int
	for n := range hashes {
		r := find(n)
		if len(members[r]) == 0 {
			roots = append(roots, r)
		}
		members[r] = append(members[r], n)
	}
	var out [][]int
	for _, r := range roots {
		if len(members[r]) > 1 {
			out = append(out, members[r])
		}
	}
	return out
}

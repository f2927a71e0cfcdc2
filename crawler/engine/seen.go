package engine

import "hash/maphash"

// seenSet records the URLs claimed in a run (links queued, and redirect
// targets followed), by a 64-bit hash of the URL: two URLs of one crawl
// sharing it is a one-in-2^40 event even at a million links. URLs rather
// than link IDs, so that a redirect target, which has no ID until it is
// stored, is claimed by the same set. It holds at most max entries; beyond
// that it records nothing more and says so (overflowed), and the frontier
// asks the graph instead whether a link was crawled.
//
// It is the one structure of a run that grows with every link it claims
// (Options.Referrers aside), so it is kept to the hashes alone:
// open-addressed tables of uint64 (a Go map[uint64]struct{} pads each slot
// to 16 bytes, and spent 30 to 40 bytes a hash: 38 MiB at a million
// links). A table doubles when three quarters full, so a hash costs 8
// bytes over the table's load: 11 to 21 bytes, 16 MiB at a million links
// and 64 MiB at DefaultMaxSeen. The hashes are spread over seenShards
// tables, so that a doubling, which holds a table and one twice its size
// at once, is a step of a small part of the set rather than of all of it.
//
// The hash is seeded per run (maphash), so that a site cannot choose URLs
// whose hashes collide with the ones it wants the crawl to pass by.
type seenSet struct {
	seed     maphash.Seed
	shards   [seenShards]seenShard
	n        int
	max      int
	overflow bool
}

// seenShards is the number of tables of a seenSet: a power of two, chosen
// by a hash's top bits.
const seenShards = 256

// seenShard is an open-addressed table of hashes with linear probing; 0
// marks a free slot (the hash 0 is stored as 1). Its length is a power of
// two, or 0 until its first hash.
type seenShard struct {
	slots []uint64
	n     int
}

func newSeenSet(max int) *seenSet {
	return &seenSet{seed: maphash.MakeSeed(), max: max}
}

func (s *seenSet) hash(url string) (shard *seenShard, h uint64) {
	h = maphash.String(s.seed, url)
	if h == 0 {
		h = 1
	}
	return &s.shards[h>>56], h
}

// add records url and reports whether it was new. Once the set is full,
// every url not recorded counts as new.
func (s *seenSet) add(url string) bool {
	t, h := s.hash(url)
	if t.has(h) {
		return false
	}
	if s.n >= s.max {
		s.overflow = true
		return true
	}
	if (t.n+1)*4 > len(t.slots)*3 {
		t.grow()
	}
	t.insert(h)
	s.n++
	return true
}

func (s *seenSet) has(url string) bool {
	t, h := s.hash(url)
	return t.has(h)
}

func (s *seenSet) overflowed() bool { return s.overflow }

func (t *seenShard) has(h uint64) bool {
	if len(t.slots) == 0 {
		return false
	}
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch t.slots[i] {
		case h:
			return true
		case 0:
			return false
		}
	}
}

// insert stores h, which the table does not hold; there must be a free
// slot.
func (t *seenShard) insert(h uint64) {
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = h
	t.n++
}

func (t *seenShard) grow() {
	old := t.slots
	t.slots = make([]uint64, max(16, 2*len(old)))
	t.n = 0
	for _, h := range old {
		if h != 0 {
			t.insert(h)
		}
	}
}

package engine

import (
	"bytes"
	"hash/fnv"

	"github.com/google/uuid"
)

// seenSet records the URLs claimed in a run (links queued, and redirect
// targets followed), by a 64-bit hash of the URL: two URLs of one crawl
// sharing it is a one-in-2^40 event even at a million links, and a set of
// uint64 costs a fraction of one of strings. URLs rather than link IDs, so
// that a redirect target, which has no ID until it is stored, is claimed
// by the same set. It holds at most max entries;
// beyond that it records nothing more and says so (overflowed), and the
// frontier asks the graph instead whether a link was crawled.
type seenSet struct {
	m        map[uint64]struct{}
	max      int
	overflow bool
}

func newSeenSet(max int) *seenSet {
	return &seenSet{m: make(map[uint64]struct{}), max: max}
}

func key(url string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(url))
	return h.Sum64()
}

// add records url and reports whether it was new. Once the set is full,
// every url not recorded counts as new.
func (s *seenSet) add(url string) bool {
	k := key(url)
	if _, ok := s.m[k]; ok {
		return false
	}
	if len(s.m) >= s.max {
		s.overflow = true
		return true
	}
	s.m[k] = struct{}{}
	return true
}

func (s *seenSet) has(url string) bool {
	_, ok := s.m[key(url)]
	return ok
}

func (s *seenSet) overflowed() bool { return s.overflow }

// compareIDs orders UUIDs as the link graph does: byte-wise.
func compareIDs(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) }

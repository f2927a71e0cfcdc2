package engine

import (
	"bytes"
	"encoding/binary"

	"github.com/google/uuid"
)

// seenSet records the links queued in a run, by the first 8 bytes of their
// ID: link IDs are random (version 4), so two links of one crawl sharing
// them is a one-in-2^40 event even at a million links, and a set of
// uint64 costs a fraction of one of UUIDs. It holds at most max entries;
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

func key(id uuid.UUID) uint64 { return binary.BigEndian.Uint64(id[:8]) }

// add records id and reports whether it was new. Once the set is full,
// every id not recorded counts as new.
func (s *seenSet) add(id uuid.UUID) bool {
	k := key(id)
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

func (s *seenSet) has(id uuid.UUID) bool {
	_, ok := s.m[key(id)]
	return ok
}

func (s *seenSet) overflowed() bool { return s.overflow }

// compareIDs orders UUIDs as the link graph does: byte-wise.
func compareIDs(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) }

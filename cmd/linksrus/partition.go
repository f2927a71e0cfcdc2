package main

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
)

// partition is the share of the UUID space that one of N cooperating
// processes crawls: the half-open range [from, to) in the byte order the
// link graph iterates in, where a zero to means "to the end". The N ranges
// of a split cover the space exactly once.
type partition struct {
	index, count int
	from, to     uuid.UUID
}

// parsePartition parses "I/N" (0 <= I < N); the empty string is the whole
// space.
func parsePartition(s string) (partition, error) {
	if s == "" {
		return partition{index: 0, count: 1}, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return partition{}, fmt.Errorf("partition %q: want I/N with 0 <= I < N, e.g. 0/3", s)
	}
	p := partition{index: i, count: n}
	// Split on the first 64 bits; random (version 4) IDs spread evenly.
	step := ^uint64(0)/uint64(n) + 1
	if n == 1 {
		return p, nil
	}
	binary.BigEndian.PutUint64(p.from[:8], uint64(i)*step)
	if i < n-1 {
		binary.BigEndian.PutUint64(p.to[:8], uint64(i+1)*step)
	}
	return p, nil
}

// contains reports whether id is in the partition.
func (p partition) contains(id uuid.UUID) bool {
	if linkgraph.CompareIDs(id, p.from) < 0 {
		return false
	}
	return p.to == uuid.Nil || linkgraph.CompareIDs(id, p.to) < 0
}

func (p partition) String() string {
	return fmt.Sprintf("%d/%d", p.index, p.count)
}

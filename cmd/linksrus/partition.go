package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/linksrus/linksrus/crawler/engine"
)

// partition is --partition I/N: share I of the link graph that N
// cooperating processes split between them (engine.Share does the
// arithmetic).
type partition struct {
	index, count int
}

// parsePartition parses "I/N" (0 <= I < N); the empty string is the whole
// graph.
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
	return partition{index: i, count: n}, nil
}

// options returns the engine's Partition for p, nil for the whole graph.
func (p partition) options(idle time.Duration) (*engine.Partition, error) {
	if p.count <= 1 {
		return nil, nil
	}
	return engine.Share(p.index, p.count, idle)
}

func (p partition) String() string {
	return fmt.Sprintf("%d/%d", p.index, p.count)
}

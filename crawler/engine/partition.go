package engine

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
)

// Partition restricts a crawl to the links whose ID is in [From, To) (a
// zero To: to the end), for processes that share one graph and split it
// between them. A process whose share runs out waits up to Idle for the
// others to discover links in it before it finishes.
type Partition struct {
	From, To uuid.UUID
	Idle     time.Duration
}

// Contains reports whether id is in the partition.
func (p *Partition) Contains(id uuid.UUID) bool {
	if p == nil {
		return true
	}
	if linkgraph.CompareIDs(id, p.From) < 0 {
		return false
	}
	return p.To == uuid.Nil || linkgraph.CompareIDs(id, p.To) < 0
}

// Share returns share i of n of the link graph's ID space (0 <= i < n),
// for n processes that split one graph between them, each crawling its own
// share (Options.Partition): the n ranges cover the space exactly once, in
// the graph's ID order (linkgraph.CompareIDs). The space is split on the
// IDs' first 64 bits, which random (version 4) IDs, as the PostgreSQL graph
// gives links, spread evenly. idle is the Partition's Idle. Share(0, 1) is
// the whole space.
func Share(i, n int, idle time.Duration) (*Partition, error) {
	if n < 1 || i < 0 || i >= n {
		return nil, fmt.Errorf("%w: share %d of %d: want 0 <= i < n", ErrOptions, i, n)
	}
	p := &Partition{Idle: idle}
	if n == 1 {
		return p, nil
	}
	step := ^uint64(0)/uint64(n) + 1
	binary.BigEndian.PutUint64(p.From[:8], uint64(i)*step)
	if i < n-1 {
		binary.BigEndian.PutUint64(p.To[:8], uint64(i+1)*step)
	}
	return p, nil
}

// Package graphutil holds the rules every linkgraph backend applies the same
// way (validation, time precision, ID ranges, batch de-duplication), so that
// the backends cannot drift apart.
package graphutil

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
)

// Timestamp returns t as the graph stores it: UTC, in whole microseconds
// (PostgreSQL's precision), rounded up when t has a finer part, without a
// monotonic clock reading. Rounding up keeps a stored time from moving
// before the time it stands for, and so before any clock reading made
// earlier: a time bound read before a link was retrieved or an edge was
// seen never finds it (see linkgraph.Graph, "Time").
//
// A time bound ("before t") given to a query is rounded the same way,
// which does not change its meaning: a stored time (whole microseconds) is
// before t exactly when it is before Timestamp(t).
func Timestamp(t time.Time) time.Time {
	s := t.Truncate(time.Microsecond)
	if s.Before(t) {
		s = s.Add(time.Microsecond)
	}
	return s.UTC()
}

// Clock is the graph's clock as one write call sees it. Each call that
// stores a time takes a NewClock when it starts, stores the times Stamp
// and StampOrNow give, and calls Settle before it returns.
//
// Stored times are rounded up (Timestamp), so a time read from the clock
// before the call is never after one the call stores. The other half of
// the contract, that a time read after the call returns is after every
// time the call stored, holds by itself for times before the microsecond
// the call began in; for a time stored in that microsecond (the graph's
// own stamp, or a caller's time.Now read just before the call), Settle
// waits for the clock to pass it. That costs nothing when the call took
// longer than the rest of the microsecond, as a database's round trip
// does, and a spin of less than a microsecond otherwise; no sleep.
type Clock struct {
	start time.Time // when the call began, with the monotonic reading
	now   time.Time // Timestamp(start): the call's stamp
	wait  bool      // the call stored now, which the clock may not have passed
}

// NewClock returns the clock of a call beginning now.
func NewClock() *Clock { return clockAt(time.Now()) }

func clockAt(start time.Time) *Clock { return &Clock{start: start, now: Timestamp(start)} }

// Stamp returns t as stored (Timestamp), noting whether it is a time Settle
// must wait for. The zero time stays zero.
func (c *Clock) Stamp(t time.Time) time.Time {
	s := Timestamp(t)
	if s.Equal(c.now) {
		c.wait = true
	}
	return s
}

// StampOrNow is Stamp, but for a zero t ("now": an edge's UpdatedAt, a
// RefreshEdges time), which gets the graph's stamp for the call: the time
// the call began, rounded up.
func (c *Clock) StampOrNow(t time.Time) time.Time {
	if t.IsZero() {
		c.wait = true
		return c.now
	}
	return c.Stamp(t)
}

// Settle returns once the clock has passed the times stored in the
// microsecond the call began in, if any: at once in the common case, after
// a spin of less than a microsecond at most. The spin is bounded by the
// monotonic clock, so a wall clock stepped back cannot make it hang.
func (c *Clock) Settle() {
	if !c.wait {
		return
	}
	ahead := c.now.Sub(c.start) // by the wall clock: now has no monotonic reading
	for {
		if n := time.Now(); n.After(c.now) || n.Sub(c.start) > ahead {
			return
		}
	}
}

// ValidateLink reports whether link can be stored.
func ValidateLink(link *linkgraph.Link) error {
	switch {
	case link == nil:
		return fmt.Errorf("nil link: %w", linkgraph.ErrInvalidLink)
	case link.URL == "":
		return fmt.Errorf("empty URL: %w", linkgraph.ErrInvalidLink)
	case len(link.URL) > linkgraph.MaxURLLength:
		return fmt.Errorf("URL of %d bytes is longer than %d: %w", len(link.URL), linkgraph.MaxURLLength, linkgraph.ErrInvalidLink)
	case !utf8.ValidString(link.URL):
		return fmt.Errorf("URL %q is not valid UTF-8: %w", link.URL, linkgraph.ErrInvalidLink)
	case strings.IndexByte(link.URL, 0) >= 0:
		return fmt.Errorf("URL %q contains a NUL byte: %w", link.URL, linkgraph.ErrInvalidLink)
	}
	if err := validateValidator("ETag", link.ETag); err != nil {
		return err
	}
	return validateValidator("LastModified", link.LastModified)
}

func validateValidator(name, v string) error {
	switch {
	case len(v) > linkgraph.MaxValidatorLength:
		return fmt.Errorf("%s of %d bytes is longer than %d: %w", name, len(v), linkgraph.MaxValidatorLength, linkgraph.ErrInvalidLink)
	case !utf8.ValidString(v):
		return fmt.Errorf("%s %q is not valid UTF-8: %w", name, v, linkgraph.ErrInvalidLink)
	case strings.IndexByte(v, 0) >= 0:
		return fmt.Errorf("%s %q contains a NUL byte: %w", name, v, linkgraph.ErrInvalidLink)
	}
	return nil
}

// ValidateEdge reports whether edge is usable at all; whether its links
// exist is the backend's business.
func ValidateEdge(edge *linkgraph.Edge) error {
	if edge == nil {
		return fmt.Errorf("nil edge: %w", linkgraph.ErrUnknownEdgeLinks)
	}
	return nil
}

// InRange reports whether id is in [from, to), where a to of uuid.Nil means
// no upper bound.
func InRange(id, from, to uuid.UUID) bool {
	return linkgraph.CompareIDs(id, from) >= 0 && (to == uuid.Nil || linkgraph.CompareIDs(id, to) < 0)
}

// EmptyRange reports whether [from, to) can hold no ID at all.
func EmptyRange(from, to uuid.UUID) bool {
	return to != uuid.Nil && linkgraph.CompareIDs(from, to) >= 0
}

// LinkBatch is a batch of links reduced to one entry per URL, each with the
// latest RetrievedAt (already passed through Clock.Stamp) its duplicates asked
// for, in the order the URLs first appear.
type LinkBatch struct {
	URLs        []string
	RetrievedAt []time.Time
	// ETag and LastModified are the validators of the occurrence that
	// brought RetrievedAt (see linkgraph.Graph, "Validators").
	ETag, LastModified []string
	// Index maps each input position to its entry.
	Index []int
}

// DedupLinks validates links and folds duplicates together, because one SQL
// statement cannot update a row twice and every duplicate must get one ID.
// Their times go through clock.Stamp.
func DedupLinks(links []*linkgraph.Link, clock *Clock) (*LinkBatch, error) {
	b := &LinkBatch{Index: make([]int, len(links))}
	seen := make(map[string]int, len(links))
	for i, l := range links {
		if err := ValidateLink(l); err != nil {
			return nil, fmt.Errorf("link %d: %w", i, err)
		}
		at := clock.Stamp(l.RetrievedAt)
		j, ok := seen[l.URL]
		if !ok {
			j = len(b.URLs)
			seen[l.URL] = j
			b.URLs = append(b.URLs, l.URL)
			b.RetrievedAt = append(b.RetrievedAt, at)
			b.ETag = append(b.ETag, l.ETag)
			b.LastModified = append(b.LastModified, l.LastModified)
		} else if at.After(b.RetrievedAt[j]) {
			b.RetrievedAt[j] = at
			b.ETag[j], b.LastModified[j] = l.ETag, l.LastModified
		}
		b.Index[i] = j
	}
	return b, nil
}

// EdgeKey identifies an edge.
type EdgeKey struct{ Src, Dst uuid.UUID }

// EdgeBatch is a batch of edges reduced to one entry per (Src, Dst), each
// with the latest UpdatedAt its duplicates asked for.
type EdgeBatch struct {
	Keys      []EdgeKey
	UpdatedAt []time.Time
	// Index maps each input position to its entry.
	Index []int
}

// DedupEdges validates edges, passes their times through clock.StampOrNow
// (a zero UpdatedAt is "now") and folds duplicates together.
func DedupEdges(edges []*linkgraph.Edge, clock *Clock) (*EdgeBatch, error) {
	b := &EdgeBatch{Index: make([]int, len(edges))}
	seen := make(map[EdgeKey]int, len(edges))
	for i, e := range edges {
		if err := ValidateEdge(e); err != nil {
			return nil, fmt.Errorf("edge %d: %w", i, err)
		}
		at := clock.StampOrNow(e.UpdatedAt)
		k := EdgeKey{e.Src, e.Dst}
		j, ok := seen[k]
		if !ok {
			j = len(b.Keys)
			seen[k] = j
			b.Keys = append(b.Keys, k)
			b.UpdatedAt = append(b.UpdatedAt, at)
		} else if at.After(b.UpdatedAt[j]) {
			b.UpdatedAt[j] = at
		}
		b.Index[i] = j
	}
	return b, nil
}

// Later returns the later of a and b.
func Later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// EdgeID is the ID of the edge src → dst in the backends that derive it
// rather than store it (memory, bolt): the same for the same pair whoever
// asks, distinct for distinct pairs as far as a 128-bit hash goes. It is
// the 128-bit FNV-1a hash of src||dst marked as a version 8 (custom) UUID,
// computed without allocating; a scan derives one per edge, so it must be
// cheap (SHA-1 made it half of a bolt scan's CPU). It must never change:
// callers have seen the IDs it gave.
func EdgeID(src, dst uuid.UUID) uuid.UUID {
	// FNV-1a, 128 bits: offset basis and prime 2^88 + 2^8 + 0x3b as two
	// 64-bit halves (hi, lo), as hash/fnv computes them.
	const (
		primeLo  = 0x13b
		primeShf = 24 // the prime's high half is 1<<24
	)
	hi, lo := uint64(0x6c62272e07bb0142), uint64(0x62b821756295c58d)
	step := func(b byte) {
		lo ^= uint64(b)
		// (hi, lo) *= prime, mod 2^128.
		s0, s1 := bits.Mul64(primeLo, lo)
		s0 += lo<<primeShf + primeLo*hi
		hi, lo = s0, s1
	}
	for _, b := range src {
		step(b)
	}
	for _, b := range dst {
		step(b)
	}
	var id uuid.UUID
	binary.BigEndian.PutUint64(id[:8], hi)
	binary.BigEndian.PutUint64(id[8:], lo)
	id[6] = id[6]&0x0f | 0x80 // version 8
	id[8] = id[8]&0x3f | 0x80 // RFC 9562 variant
	return id
}

// Package graphutil holds the rules every linkgraph backend applies the same
// way (validation, time precision, ID ranges, batch de-duplication), so that
// the backends cannot drift apart.
package graphutil

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
)

// Timestamp returns t as the graph stores it: UTC, truncated to the
// microsecond (PostgreSQL's precision), without a monotonic clock reading.
func Timestamp(t time.Time) time.Time {
	return t.Truncate(time.Microsecond).UTC()
}

// Bound returns a query bound ("before t") in the stored precision without
// changing its meaning: rounded up to the next microsecond when t has a
// finer part, since a stored time (whole microseconds) is before t exactly
// when it is before that. Truncating it instead would miss a time stored
// in t's own microsecond.
func Bound(t time.Time) time.Time {
	b := t.Truncate(time.Microsecond)
	if b.Before(t) {
		b = b.Add(time.Microsecond)
	}
	return b.UTC()
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

// Compare orders UUIDs byte-wise, as PostgreSQL orders its uuid type.
func Compare(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) }

// InRange reports whether id is in [from, to), where a to of uuid.Nil means
// no upper bound.
func InRange(id, from, to uuid.UUID) bool {
	return Compare(id, from) >= 0 && (to == uuid.Nil || Compare(id, to) < 0)
}

// EmptyRange reports whether [from, to) can hold no ID at all.
func EmptyRange(from, to uuid.UUID) bool {
	return to != uuid.Nil && Compare(from, to) >= 0
}

// LinkBatch is a batch of links reduced to one entry per URL, each with the
// latest RetrievedAt (already passed through Timestamp) its duplicates asked
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
func DedupLinks(links []*linkgraph.Link) (*LinkBatch, error) {
	b := &LinkBatch{Index: make([]int, len(links))}
	seen := make(map[string]int, len(links))
	for i, l := range links {
		if err := ValidateLink(l); err != nil {
			return nil, fmt.Errorf("link %d: %w", i, err)
		}
		at := Timestamp(l.RetrievedAt)
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

// DedupEdges validates edges, stamps the ones without UpdatedAt with now and
// folds duplicates together.
func DedupEdges(edges []*linkgraph.Edge, now time.Time) (*EdgeBatch, error) {
	now = Timestamp(now)
	b := &EdgeBatch{Index: make([]int, len(edges))}
	seen := make(map[EdgeKey]int, len(edges))
	for i, e := range edges {
		if err := ValidateEdge(e); err != nil {
			return nil, fmt.Errorf("edge %d: %w", i, err)
		}
		at := now
		if !e.UpdatedAt.IsZero() {
			at = Timestamp(e.UpdatedAt)
		}
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

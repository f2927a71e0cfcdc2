package bolt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/internal/graphutil"
)

// Times are stored as signed microseconds since the Unix epoch, big-endian;
// the zero time.Time (year 1) fits comfortably.

func putTime(b []byte, t time.Time) { binary.BigEndian.PutUint64(b, uint64(t.UnixMicro())) }

func getTime(b []byte) time.Time { return time.UnixMicro(int64(binary.BigEndian.Uint64(b))).UTC() }

// link value: 8 bytes retrievedAt, then the URL and, if the link has an
// ETag or a LastModified, a NUL, the ETag, a NUL and the LastModified.
// Neither a URL nor a validator holds a NUL (linkgraph.ErrInvalidLink), and
// a link without validators (most of them: every link not yet retrieved)
// is stored as in schema version 2.
func encodeLink(retrievedAt time.Time, url, etag, lastModified string) []byte {
	n := 8 + len(url)
	if etag != "" || lastModified != "" {
		n += 2 + len(etag) + len(lastModified)
	}
	v := make([]byte, 8, n)
	putTime(v, retrievedAt)
	v = append(v, url...)
	if etag != "" || lastModified != "" {
		v = append(append(append(append(v, 0), etag...), 0), lastModified...)
	}
	return v
}

func decodeLink(k, v []byte) (*linkgraph.Link, error) {
	if len(k) != 16 || len(v) < 8 {
		return nil, fmt.Errorf("corrupt link record (key %d bytes, value %d bytes)", len(k), len(v))
	}
	l := &linkgraph.Link{ID: uuid.UUID(k), RetrievedAt: getTime(v)}
	rest := v[8:]
	url, val, hasVal := bytes.Cut(rest, []byte{0})
	l.URL = string(url)
	if hasVal {
		etag, lm, ok := bytes.Cut(val, []byte{0})
		if !ok {
			return nil, fmt.Errorf("corrupt link record %x: validators without their separator", k)
		}
		l.ETag, l.LastModified = string(etag), string(lm)
	}
	return l, nil
}

// Edges are stored as one record per source page, so that writing a page's
// edges is one Put and removing its stale ones one rewrite, rather than one
// B+tree entry (and 70-odd bytes) per edge. The key is the source's ID; the
// value its outgoing edges sorted by destination ID, without repeats, each
// edgeEntrySize bytes: 16 bytes destination ID, 8 bytes updatedAt. Fixed-width
// entries can be binary-searched and copied in runs without decoding, which
// is what merging a few edges into a large record needs. A source without
// edges has no record; an empty one is corrupt.
//
// A record is rewritten whole when any of its edges changes: 2.4 MB for a
// page of 100,000 links, which bbolt keeps in overflow pages. Splitting
// large records would not save that for a crawl, which refreshes every
// edge of the page it stores; it would only make adding a few edges to a
// huge page cheaper, which no caller does.
//
// An edge's ID is not stored: it is derived from (Src, Dst) by edgeID.
const edgeEntrySize = 16 + 8

// edgeRecord is a checked record value; it aliases the bytes it was made
// from (for a value read from bbolt: valid only in the transaction).
type edgeRecord []byte

func (r edgeRecord) len() int { return len(r) / edgeEntrySize }

func (r edgeRecord) dst(i int) []byte { return r[i*edgeEntrySize : i*edgeEntrySize+16] }

// micros returns entry i's updatedAt in microseconds since the epoch.
func (r edgeRecord) micros(i int) int64 {
	return int64(binary.BigEndian.Uint64(r[i*edgeEntrySize+16:]))
}

func (r edgeRecord) edge(src uuid.UUID, i int) linkgraph.Edge {
	dst := uuid.UUID(r.dst(i))
	return linkgraph.Edge{ID: edgeID(src, dst), Src: src, Dst: dst, UpdatedAt: time.UnixMicro(r.micros(i)).UTC()}
}

// search returns the index of the first entry whose destination is not
// below dst. On a record with entries out of order (corrupt) it returns
// some index in [0, len].
func (r edgeRecord) search(dst []byte) int {
	lo, hi := 0, r.len()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(r.dst(m), dst) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

func appendEdgeEntry(b []byte, dst []byte, micros int64) []byte {
	b = append(b, dst...)
	return binary.BigEndian.AppendUint64(b, uint64(micros))
}

// checkEdgeRecordShape checks what can be checked of a record without
// reading its entries: the key is an ID and the value a non-zero whole
// number of entries.
func checkEdgeRecordShape(k, v []byte) (edgeRecord, error) {
	if len(k) != 16 {
		return nil, corruptRecord(k, fmt.Sprintf("key of %d bytes, want 16", len(k)))
	}
	if len(v) == 0 || len(v)%edgeEntrySize != 0 {
		return nil, corruptRecord(k, fmt.Sprintf("value of %d bytes, want a positive multiple of %d", len(v), edgeEntrySize))
	}
	return edgeRecord(v), nil
}

// checkEdgeRecord checks a whole record: its shape and the order of its
// destinations, which merging and searching rely on.
func checkEdgeRecord(k, v []byte) (edgeRecord, error) {
	r, err := checkEdgeRecordShape(k, v)
	if err != nil {
		return nil, err
	}
	for i := 1; i < r.len(); i++ {
		if err := r.checkOrder(k, i); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// checkOrder checks that entry i (> 0) comes after entry i-1.
func (r edgeRecord) checkOrder(k []byte, i int) error {
	if bytes.Compare(r.dst(i-1), r.dst(i)) >= 0 {
		return corruptRecord(k, fmt.Sprintf("destination %d not after the one before", i))
	}
	return nil
}

func corruptRecord(k []byte, detail string) error {
	return fmt.Errorf("edge record %x: %s: %w", k, detail, linkgraph.ErrCorrupt)
}

// edgeUpdate is an edge to merge into its source's record.
type edgeUpdate struct {
	dst    uuid.UUID
	micros int64
}

// mergeEdges returns r with ups (sorted by destination, without repeats)
// merged in: a new destination is added, a known one keeps the later of the
// two times. stored[j] receives the time ups[j] has after the merge, and
// changed reports whether the result differs from r. If isNew is not nil,
// it is called with each destination not in r, and an error it returns
// stops the merge. The result is newly allocated, as a value handed to
// bbolt must outlive the transaction's reads. Unchanged runs of r are
// copied whole, so adding a few edges to a large record costs a copy of
// it, not a decode.
func mergeEdges(r edgeRecord, ups []edgeUpdate, stored []int64, isNew func(dst uuid.UUID) error) (out edgeRecord, changed bool, err error) {
	out = make(edgeRecord, 0, len(r)+len(ups)*edgeEntrySize)
	i, n := 0, r.len()
	for j, u := range ups {
		next := i + r[i*edgeEntrySize:].search(u.dst[:])
		out = append(out, r[i*edgeEntrySize:next*edgeEntrySize]...)
		i = next
		t := u.micros
		if i < n && bytes.Equal(r.dst(i), u.dst[:]) {
			if old := r.micros(i); old >= t {
				t = old
			} else {
				changed = true
			}
			i++
		} else {
			if isNew != nil {
				if err := isNew(u.dst); err != nil {
					return nil, false, err
				}
			}
			changed = true
		}
		out = appendEdgeEntry(out, u.dst[:], t)
		stored[j] = t
	}
	return append(out, r[i*edgeEntrySize:]...), changed, nil
}

// hasStale reports whether an entry of r was updated before the bound (in
// microseconds).
func (r edgeRecord) hasStale(before int64) bool {
	for i := range r.len() {
		if r.micros(i) < before {
			return true
		}
	}
	return false
}

// withoutStale returns a new record holding the entries of r updated at or
// after the bound; it may be empty.
func (r edgeRecord) withoutStale(before int64) edgeRecord {
	out := make(edgeRecord, 0, len(r))
	for i := range r.len() {
		if r.micros(i) >= before {
			out = append(out, r[i*edgeEntrySize:(i+1)*edgeEntrySize]...)
		}
	}
	return out
}

// edgeID is the ID of the edge src -> dst, derived rather than stored
// (graphutil.EdgeID, the same in the memory backend): the same on every
// upsert and read, and it costs no space.
func edgeID(src, dst uuid.UUID) uuid.UUID { return graphutil.EdgeID(src, dst) }

package bolt

import (
	"bytes"
	"fmt"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/internal/graphutil"
	bbolt "go.etcd.io/bbolt"
)

// Iterators read in pages, each in its own short read transaction. A
// read transaction held for a whole crawl would block bbolt's writers
// whenever the file has to grow (the mmap cannot be replaced while a reader
// uses it) and would keep freed pages from being reused.
const (
	pageSize = 1000
	// maxScan bounds the records one page looks at, so that a selective
	// time filter cannot turn a page into a scan of the whole range.
	maxScan = 20 * pageSize
)

// scan walks the keys of one bucket whose first 16 bytes are in
// [from, to), keeping the records decode accepts; its fetch reads one page
// for a graphutil.Pager.
type scan[T any] struct {
	db     *store
	bucket []byte
	from   uuid.UUID
	to     uuid.UUID
	op     string
	decode func(k, v []byte) (rec *T, keep bool, err error)

	buf     []*T   // reused for each page
	lastKey []byte // last key looked at; the next page starts after it
}

// pager returns the Pager over s's pages.
func (s *scan[T]) pager() *graphutil.Pager[T] {
	if graphutil.EmptyRange(s.from, s.to) {
		return graphutil.NewPager[T](nil)
	}
	return graphutil.NewPager(s.fetch)
}

// fetch reads the next page in a read transaction of its own.
func (s *scan[T]) fetch() (page []*T, more bool, err error) {
	s.buf = s.buf[:0]
	more = true
	err = s.db.view(func(tx *bbolt.Tx) error {
		c := tx.Bucket(s.bucket).Cursor()
		var k, v []byte
		if s.lastKey == nil {
			k, v = c.Seek(s.from[:])
		} else {
			k, v = c.Seek(s.lastKey)
			if k != nil && bytes.Equal(k, s.lastKey) {
				k, v = c.Next()
			}
		}
		for scanned := 0; ; k, v = c.Next() {
			if k == nil || (s.to != uuid.Nil && bytes.Compare(k[:min(16, len(k))], s.to[:]) >= 0) {
				more = false
				return nil
			}
			if len(s.buf) == pageSize || scanned == maxScan {
				return nil
			}
			scanned++
			s.lastKey = append(s.lastKey[:0], k...)
			rec, keep, err := s.decode(k, v)
			if err != nil {
				return err
			}
			if keep {
				s.buf = append(s.buf, rec)
			}
		}
	})
	if err != nil {
		return nil, false, fmt.Errorf("bolt graph: %s: %w", s.op, err)
	}
	return s.buf, more, nil
}

// edgeScan walks the edge records of the sources in [from, to), keeping
// the edges updated before the bound; its fetch reads one page for a
// graphutil.Pager. A page ends inside a record as readily as between two:
// a page with many thousands of links is one record, and pageSize and
// maxScan count edges, not records.
type edgeScan struct {
	db     *store
	from   uuid.UUID
	to     uuid.UUID
	before int64 // microseconds

	edges []linkgraph.Edge  // the page's edges; reused for each page
	buf   []*linkgraph.Edge // pointers into edges

	// The last edge looked at, if started; the next page starts after it.
	started bool
	src     uuid.UUID
	dst     uuid.UUID
}

// fetch reads the next page in a read transaction of its own. The Pager
// has copied what it handed out of the previous page, so its edges can be
// overwritten.
func (s *edgeScan) fetch() (page []*linkgraph.Edge, more bool, err error) {
	s.edges, s.buf = s.edges[:0], s.buf[:0]
	more = true
	err = s.db.view(func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketOut).Cursor()
		start := s.from
		if s.started {
			start = s.src
		}
		k, v := c.Seek(start[:])
		for scanned := 0; k != nil; k, v = c.Next() {
			if s.to != uuid.Nil && bytes.Compare(k, s.to[:]) >= 0 {
				break
			}
			rec, err := checkEdgeRecordShape(k, v)
			if err != nil {
				return err
			}
			src := uuid.UUID(k)
			first := 0
			if s.started && src == s.src {
				// The record may have changed since the last page.
				first = rec.search(s.dst[:])
				if first < rec.len() && bytes.Equal(rec.dst(first), s.dst[:]) {
					first++
				}
			}
			for i := first; i < rec.len(); i++ {
				if len(s.edges) == pageSize || scanned == maxScan {
					return nil
				}
				// Checked as read, not all at once: the whole of a
				// large record would be checked again on every page.
				if i > 0 {
					if err := rec.checkOrder(k, i); err != nil {
						return err
					}
				}
				scanned++
				s.started, s.src, s.dst = true, src, uuid.UUID(rec.dst(i))
				if rec.micros(i) < s.before {
					s.edges = append(s.edges, rec.edge(src, i))
				}
			}
		}
		more = false
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("bolt graph: edges: %w", err)
	}
	for i := range s.edges {
		s.buf = append(s.buf, &s.edges[i])
	}
	return s.buf, more, nil
}

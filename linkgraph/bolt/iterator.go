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

// iterator walks the keys of one bucket whose first 16 bytes are in
// [from, to), keeping the records decode accepts.
type iterator[T any] struct {
	db     *bbolt.DB
	bucket []byte
	from   uuid.UUID
	to     uuid.UUID
	op     string
	decode func(k, v []byte) (rec *T, keep bool, err error)

	page    []*T
	pos     int
	lastKey []byte // last key looked at; the next page starts after it
	done    bool   // no more pages
	closed  bool
	err     error
}

func (it *iterator[T]) next() bool {
	if it.closed || it.err != nil {
		return false
	}
	for it.pos+1 >= len(it.page) {
		if it.done {
			it.page, it.pos = nil, 0
			return false
		}
		if err := it.fetch(); err != nil {
			it.err = fmt.Errorf("bolt graph: %s: %w", it.op, err)
			it.page, it.pos = nil, 0
			return false
		}
	}
	it.pos++
	return true
}

// fetch loads the next page into it.page and sets it.pos before its start.
func (it *iterator[T]) fetch() error {
	it.page, it.pos = it.page[:0], -1
	if graphutil.EmptyRange(it.from, it.to) {
		it.done = true
		return nil
	}
	return it.db.View(func(tx *bbolt.Tx) error {
		c := tx.Bucket(it.bucket).Cursor()
		var k, v []byte
		if it.lastKey == nil {
			k, v = c.Seek(it.from[:])
		} else {
			k, v = c.Seek(it.lastKey)
			if k != nil && bytes.Equal(k, it.lastKey) {
				k, v = c.Next()
			}
		}
		for scanned := 0; ; k, v = c.Next() {
			if k == nil || (it.to != uuid.Nil && bytes.Compare(k[:min(16, len(k))], it.to[:]) >= 0) {
				it.done = true
				return nil
			}
			if len(it.page) == pageSize || scanned == maxScan {
				return nil
			}
			scanned++
			it.lastKey = append(it.lastKey[:0], k...)
			rec, keep, err := it.decode(k, v)
			if err != nil {
				return err
			}
			if keep {
				it.page = append(it.page, rec)
			}
		}
	})
}

func (it *iterator[T]) current() *T {
	if it.closed || it.pos < 0 || it.pos >= len(it.page) {
		return nil
	}
	// Records are decoded into fresh values; hand out a copy so that a
	// caller changing it does not change what the next call returns.
	c := *it.page[it.pos]
	return &c
}

func (it *iterator[T]) close() error {
	it.closed, it.page = true, nil
	return nil
}

type linkIterator struct{ it *iterator[linkgraph.Link] }

func (l *linkIterator) Next() bool            { return l.it.next() }
func (l *linkIterator) Error() error          { return l.it.err }
func (l *linkIterator) Close() error          { return l.it.close() }
func (l *linkIterator) Link() *linkgraph.Link { return l.it.current() }

type edgeIterator struct{ it *iterator[linkgraph.Edge] }

func (e *edgeIterator) Next() bool            { return e.it.next() }
func (e *edgeIterator) Error() error          { return e.it.err }
func (e *edgeIterator) Close() error          { return e.it.close() }
func (e *edgeIterator) Edge() *linkgraph.Edge { return e.it.current() }

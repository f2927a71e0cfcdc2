// Package pager is the textindex.Iterator of the database backends: it
// reads a search's results in pages, each its own query, so that an
// iterator holds no connection or read transaction between calls (a
// document changed while paging may move between pages).
//
// The first page is FirstBatch results, a page or two of a typical result
// list, so that a caller reading the first ten results does not pay for
// materialising thousands; for a query of URLs only (Query.URLsOnly), read
// by a facet that counts hundreds, it is FirstURLsBatch, whose rows cost
// little, so that the facet ranks the hits once. Every fetch ranks all hits again, so later pages
// double in size up to MaxBatch, keeping a full walk over n results at
// O(log n) rankings.
package pager

import (
	"math"

	"github.com/linksrus/linksrus/textindex"
)

// Page sizes; see the package comment.
const (
	FirstBatch     = 64
	FirstURLsBatch = 512
	MaxBatch       = 4096
)

// FetchFunc reads at most limit results, best first, skipping the first
// offset.
type FetchFunc func(offset uint64, limit int) ([]*textindex.Document, error)

// Iterator is a textindex.Iterator over the results fetch reads.
type Iterator struct {
	fetch  FetchFunc
	offset uint64
	total  uint64

	batch []*textindex.Document
	size  int // results the next fetch asks for
	cur   *textindex.Document
	done  bool // no more pages to fetch
	err   error
}

var _ textindex.Iterator = (*Iterator)(nil)

// New returns an iterator over the results of q, total hits in all,
// starting after q.Offset of them. A nil fetch means a search that cannot
// match (an expression without terms): the iterator is empty.
func New(q textindex.Query, total uint64, fetch FetchFunc) *Iterator {
	offset := q.Offset
	it := &Iterator{fetch: fetch, offset: offset, total: total, size: FirstSize(q)}
	if fetch == nil || offset >= total || offset > math.MaxInt64 {
		it.done = true
	}
	return it
}

// FirstSize is the number of results the first page of q asks for:
// FirstBatch, or FirstURLsBatch for a query of URLs only.
func FirstSize(q textindex.Query) int {
	if q.URLsOnly {
		return FirstURLsBatch
	}
	return FirstBatch
}

// Started returns an iterator as New does whose first page, first (at
// most FirstSize(q) results from q.Offset on), was read with the total: by
// a backend that counts the hits in the statement that ranks them rather
// than in a statement of its own that finds them all again.
func Started(q textindex.Query, total uint64, first []*textindex.Document, fetch FetchFunc) *Iterator {
	it := New(q, total, fetch)
	if !it.done {
		it.take(first)
	}
	return it
}

// Next implements textindex.Iterator.
func (it *Iterator) Next() bool {
	if it.err != nil {
		return false
	}
	if len(it.batch) == 0 && !it.done {
		it.fetchPage()
	}
	if len(it.batch) == 0 {
		it.cur = nil
		return false
	}
	it.cur, it.batch = it.batch[0], it.batch[1:]
	return true
}

func (it *Iterator) fetchPage() {
	batch, err := it.fetch(it.offset, it.size)
	if err != nil {
		it.err = err
		it.batch = nil
		return
	}
	it.take(batch)
}

// take makes batch, the page asked for from it.offset on, the results to
// return next.
func (it *Iterator) take(batch []*textindex.Document) {
	it.batch = batch
	it.offset += uint64(len(batch))
	if len(batch) < it.size || it.offset >= it.total {
		it.done = true
	}
	it.size = min(2*it.size, MaxBatch)
}

// Document implements textindex.Iterator: a copy of the current result.
func (it *Iterator) Document() *textindex.Document {
	if it.cur == nil {
		return nil
	}
	d := *it.cur
	return &d
}

// Error implements textindex.Iterator.
func (it *Iterator) Error() error { return it.err }

// TotalCount implements textindex.Iterator.
func (it *Iterator) TotalCount() uint64 { return it.total }

// Close implements textindex.Iterator.
func (it *Iterator) Close() error {
	it.batch, it.cur, it.done = nil, nil, true
	return nil
}

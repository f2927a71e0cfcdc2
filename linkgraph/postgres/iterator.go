package postgres

import (
	"context"
	"fmt"

	"github.com/linksrus/linksrus/linkgraph"
)

// pageSize is how many rows one query of an iterator reads. Reading in pages
// (keyset pagination on the primary key) means an iterator holds no
// connection or transaction between pages, so a slow consumer such as a
// crawl neither starves the pool nor keeps a long transaction open, which
// CockroachDB would eventually abort.
const pageSize = 1000

// iterator pages through a query; fetch returns the page after last (or
// the first page when last is nil).
type iterator[T any] struct {
	g     *Graph
	op    string
	empty bool
	fetch func(ctx context.Context, last *T) ([]*T, error)

	page   []*T
	pos    int
	last   *T
	done   bool
	closed bool
	err    error
}

func (it *iterator[T]) next() bool {
	if it.closed || it.err != nil {
		return false
	}
	if it.pos+1 < len(it.page) {
		it.pos++
		it.last = it.page[it.pos]
		return true
	}
	if it.done || it.empty {
		it.page, it.pos = nil, 0
		return false
	}
	var page []*T
	err := retry(it.g.ctx, func(ctx context.Context) error {
		var err error
		page, err = it.fetch(ctx, it.last)
		return err
	})
	if err != nil {
		it.err = fmt.Errorf("postgres graph: %s: %w", it.op, err)
		it.page, it.pos = nil, 0
		return false
	}
	it.done = len(page) < pageSize
	if len(page) == 0 {
		it.page, it.pos = nil, 0
		return false
	}
	it.page, it.pos, it.last = page, 0, page[0]
	return true
}

func (it *iterator[T]) current() *T {
	if it.closed || it.pos < 0 || it.pos >= len(it.page) {
		return nil
	}
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

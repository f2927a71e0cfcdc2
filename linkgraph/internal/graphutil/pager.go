package graphutil

import "github.com/linksrus/linksrus/linkgraph"

// FetchFunc reads the next page of an iteration; more reports whether a
// page may follow this one. An empty page with more set is allowed (a page
// whose records were all filtered out) and makes the Pager fetch again.
type FetchFunc[T any] func() (page []*T, more bool, err error)

// Pager is the iteration state of the backends whose iterators read in
// pages, each page its own short query or transaction, so that an open
// iterator holds no connection or lock between pages. It hands out copies,
// so callers cannot change the records the next call returns.
type Pager[T any] struct {
	fetch  FetchFunc[T]
	page   []*T
	pos    int
	done   bool // no more pages
	closed bool
	err    error
}

// NewPager returns a Pager over the pages fetch reads; a nil fetch is an
// empty iteration.
func NewPager[T any](fetch FetchFunc[T]) *Pager[T] {
	return &Pager[T]{fetch: fetch, done: fetch == nil}
}

// Next advances to the next record, fetching pages as needed.
func (p *Pager[T]) Next() bool {
	if p.closed || p.err != nil {
		return false
	}
	for p.pos+1 >= len(p.page) {
		if p.done {
			p.page, p.pos = nil, 0
			return false
		}
		page, more, err := p.fetch()
		if err != nil {
			p.err = err
			p.page, p.pos = nil, 0
			return false
		}
		p.page, p.pos, p.done = page, -1, !more
	}
	p.pos++
	return true
}

// Current returns a copy of the current record, or nil.
func (p *Pager[T]) Current() *T {
	if p.closed || p.pos < 0 || p.pos >= len(p.page) {
		return nil
	}
	c := *p.page[p.pos]
	return &c
}

// Error returns the error that stopped the iteration, if any.
func (p *Pager[T]) Error() error { return p.err }

// Close ends the iteration and releases the current page.
func (p *Pager[T]) Close() error {
	p.closed, p.page = true, nil
	return nil
}

// LinkIterator is a linkgraph.LinkIterator over a Pager.
type LinkIterator struct{ *Pager[linkgraph.Link] }

// Link implements linkgraph.LinkIterator.
func (it LinkIterator) Link() *linkgraph.Link { return it.Current() }

// EdgeIterator is a linkgraph.EdgeIterator over a Pager.
type EdgeIterator struct{ *Pager[linkgraph.Edge] }

// Edge implements linkgraph.EdgeIterator.
func (it EdgeIterator) Edge() *linkgraph.Edge { return it.Current() }

var (
	_ linkgraph.LinkIterator = LinkIterator{}
	_ linkgraph.EdgeIterator = EdgeIterator{}
)

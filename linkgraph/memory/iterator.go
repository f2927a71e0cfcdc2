package memory

import "github.com/linksrus/linksrus/linkgraph"

// linkIterator walks a private, sorted copy of the matching links.
type linkIterator struct {
	links []linkgraph.Link
	pos   int
}

func (it *linkIterator) Next() bool {
	if it.pos+1 >= len(it.links) {
		it.pos = len(it.links)
		return false
	}
	it.pos++
	return true
}

func (it *linkIterator) Error() error { return nil }

func (it *linkIterator) Close() error {
	it.links, it.pos = nil, 0
	return nil
}

// Link returns a fresh copy each time so that callers cannot alter what a
// later call returns.
func (it *linkIterator) Link() *linkgraph.Link {
	if it.pos < 0 || it.pos >= len(it.links) {
		return nil
	}
	l := it.links[it.pos]
	return &l
}

// edgeIterator walks a private, sorted copy of the matching edges.
type edgeIterator struct {
	edges []linkgraph.Edge
	pos   int
}

func (it *edgeIterator) Next() bool {
	if it.pos+1 >= len(it.edges) {
		it.pos = len(it.edges)
		return false
	}
	it.pos++
	return true
}

func (it *edgeIterator) Error() error { return nil }

func (it *edgeIterator) Close() error {
	it.edges, it.pos = nil, 0
	return nil
}

func (it *edgeIterator) Edge() *linkgraph.Edge {
	if it.pos < 0 || it.pos >= len(it.edges) {
		return nil
	}
	e := it.edges[it.pos]
	return &e
}

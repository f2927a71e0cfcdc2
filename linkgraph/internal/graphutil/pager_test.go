package graphutil

import (
	"errors"
	"testing"

	"github.com/linksrus/linksrus/linkgraph"
)

func TestPagerSkipsEmptyPagesAndStopsAtTheLast(t *testing.T) {
	pages := [][]*linkgraph.Link{{{URL: "a"}, {URL: "b"}}, {}, {{URL: "c"}}}
	calls := 0
	it := LinkIterator{NewPager(func() ([]*linkgraph.Link, bool, error) {
		page := pages[calls]
		calls++
		return page, calls < len(pages), nil
	})}
	var got []string
	for it.Next() {
		l := it.Link()
		got = append(got, l.URL)
		l.URL = "changed" // a copy
	}
	if len(got) != 3 || got[0] != "a" || got[1] != "b" || got[2] != "c" || calls != 3 {
		t.Fatalf("got %v after %d fetches, want [a b c] after 3", got, calls)
	}
	if it.Next() || it.Link() != nil || it.Error() != nil {
		t.Fatal("iteration went on after the last page")
	}
}

func TestPagerErrorsAndClose(t *testing.T) {
	boom := errors.New("boom")
	it := EdgeIterator{NewPager(func() ([]*linkgraph.Edge, bool, error) { return nil, false, boom })}
	if it.Next() || !errors.Is(it.Error(), boom) {
		t.Fatalf("Next after a failed fetch: %v", it.Error())
	}
	empty := LinkIterator{NewPager[linkgraph.Link](nil)}
	if empty.Next() {
		t.Fatal("a nil fetch yielded a record")
	}
	open := LinkIterator{NewPager(func() ([]*linkgraph.Link, bool, error) {
		return []*linkgraph.Link{{URL: "a"}}, true, nil
	})}
	if !open.Next() || open.Close() != nil || open.Next() || open.Link() != nil {
		t.Fatal("Close did not end the iteration")
	}
}

package main

import (
	"slices"
	"strconv"
	"testing"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler/politeness"
	"github.com/linksrus/linksrus/linkgraph"
)

func TestFrontierHandsOutShallowestFirst(t *testing.T) {
	f, err := newFrontier(t.Context(), 0, politeness.Options{MaxInFlight: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i, depth := range []int{3, 1, 9, 0, 2, 1} {
		id := uuid.New()
		if !f.add(linkgraph.Link{ID: id, URL: "http://h/" + strconv.Itoa(i)}, "h", depth) {
			t.Fatalf("link %d not queued", i)
		}
		if f.add(linkgraph.Link{ID: id, URL: "http://h/again"}, "h", 0) {
			t.Fatalf("link %d queued twice", i)
		}
	}
	var depths []int
	for f.Next() {
		l := f.Link()
		d, _ := f.depthOf(l.ID)
		depths = append(depths, d)
		if len(depths) == 6 {
			break
		}
	}
	if want := []int{0, 1, 1, 2, 3, 9}; !slices.Equal(depths, want) {
		t.Fatalf("depths handed out %v, want %v", depths, want)
	}
}

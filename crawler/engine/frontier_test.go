package engine

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/memory"
)

func TestFrontierHandsOutShallowestFirst(t *testing.T) {
	for _, maxQueued := range []int{100, 2} { // in memory, and mostly spilled
		o, err := Options{Graph: memory.New(), PerHost: 100, MaxQueued: maxQueued, SpillDir: t.TempDir()}.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		f, err := newFrontier(context.Background(), &o, time.Unix(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		for i, depth := range []int{3, 1, 9, 0, 2, 1} {
			id := uuid.New()
			if ok, err := f.add(linkgraph.Link{ID: id, URL: "http://h/" + strconv.Itoa(i)}, depth); !ok || err != nil {
				t.Fatalf("link %d not queued: %v", i, err)
			}
			if ok, _ := f.add(linkgraph.Link{ID: id, URL: "http://h/" + strconv.Itoa(i)}, 0); ok {
				t.Fatalf("link %d queued twice", i)
			}
		}
		var depths []int
		for len(depths) < 6 && f.Next() {
			l := f.Link()
			d, _ := f.depthOf(l.ID)
			depths = append(depths, d)
		}
		// Spilled links come back shallowest first as the queue drains
		// below half its bound.
		want := []int{0, 1, 1, 2, 3, 9}
		if maxQueued == 2 {
			want = []int{1, 0, 1, 2, 3, 9}
		}
		if !slices.Equal(depths, want) {
			t.Errorf("MaxQueued %d: depths handed out %v, want %v", maxQueued, depths, want)
		}
		f.Close()
	}
}

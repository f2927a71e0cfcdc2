package engine

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"
)

// liveHeap collects garbage and returns the live heap.
func liveHeap() uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

func TestSeenSet(t *testing.T) {
	s := newSeenSet(1_000)
	for i := range 1_000 {
		u := fmt.Sprintf("http://h/%d", i)
		if s.has(u) || !s.add(u) || !s.has(u) || s.add(u) {
			t.Fatalf("%s: not recorded once", u)
		}
	}
	if s.overflowed() {
		t.Fatal("overflowed at its bound")
	}
	for i := range 1_000 {
		if u := fmt.Sprintf("http://h/%d", i); !s.has(u) {
			t.Fatalf("%s lost", u)
		}
	}
	// Full: a new URL counts as new every time, and is not recorded.
	for range 2 {
		if !s.add("http://h/new") {
			t.Error("a URL beyond the bound is not new")
		}
	}
	if s.has("http://h/new") || !s.overflowed() {
		t.Error("a URL beyond the bound is recorded, or the set does not say it overflowed")
	}
	if s.add("http://h/7") {
		t.Error("a URL recorded before the set was full counts as new")
	}
}

// The seen-set is the one part of a run that grows with every link: it
// must cost no more than its 64-bit hash over its tables' load (11 to 21
// bytes a link), as DefaultMaxSeen says, where a Go map of the hashes
// cost about 40.
func TestSeenSetCost(t *testing.T) {
	const n = 300_000
	urls := make([]string, n) // not the set's: measured before it
	for i := range urls {
		urls[i] = fmt.Sprintf("https://www.example.com/section/article-%d.html", i)
	}
	before := liveHeap()
	s := newSeenSet(DefaultMaxSeen)
	for _, u := range urls {
		s.add(u)
	}
	after := liveHeap()
	runtime.KeepAlive(s)
	runtime.KeepAlive(urls)
	perLink := (float64(after) - float64(before)) / n
	t.Logf("%d links: %.1f bytes a link", n, perLink)
	if perLink > 22 {
		t.Errorf("the seen-set costs %.1f bytes a link, want at most 21", perLink)
	}
}

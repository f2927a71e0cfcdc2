package engine

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/google/uuid"
)

func TestLinkIDs(t *testing.T) {
	c := newLinkIDs(4)
	ids := make([]uuid.UUID, 6)
	for i := range ids {
		ids[i] = uuid.New()
	}
	url := func(i int) string { return fmt.Sprintf("http://h/%d", i) }
	c.put(url(0), ids[0])
	c.put(url(1), ids[1])
	c.put(url(1), ids[1]) // again: no room taken
	c.put(url(2), ids[2]) // the first generation is full: 0 and 1 are older
	if id, ok := c.get(url(1)); !ok || id != ids[1] {
		t.Fatalf("get(1) = %v, %v", id, ok) // and 1 moves back to the newer
	}
	c.put(url(3), ids[3]) // 2 and 1 become older, 0 goes
	c.put(url(4), ids[4])
	if _, ok := c.get(url(0)); ok {
		t.Error("the link asked for least is still held")
	}
	// 1 moves back to the newer generation, which is full: 3 and 4
	// become older, and 2, neither put nor asked for since, goes.
	for _, i := range []int{3, 4, 1} {
		if id, ok := c.get(url(i)); !ok || id != ids[i] {
			t.Errorf("get(%d) = %v, %v, want %v", i, id, ok, ids[i])
		}
	}
	if _, ok := c.get(url(2)); ok {
		t.Error("an older link still held when one asked for since came back")
	}
	for _, i := range []int{3, 4, 1} {
		if id, ok := c.get(url(i)); !ok || id != ids[i] {
			t.Errorf("get(%d) = %v, %v, want %v", i, id, ok, ids[i])
		}
	}
	if n := c.size(); n > 4 {
		t.Errorf("%d links held, want at most 4", n)
	}
}

// The caches of known link IDs stay within their bound, in links and in
// memory, however many links a run claims or leaves out, and keep the
// links found on every page (a site's navigation) all along. At 1<<18
// links each, starting over empty once full, they held 45 MiB here and
// forgot the home page's link after 262,143 others.
func TestKnownLinksBounded(t *testing.T) {
	g := newDiscovery(nil)
	home, homeID := "https://www.example.com/", uuid.New()
	g.knowLink(home, homeID)
	id := uuid.New()
	const n = 300_000
	before := liveHeap()
	for i := range n {
		g.knowLink(fmt.Sprintf("https://www.example.com/section/article-%09d.html", i), id)
		g.leaveOut(fmt.Sprintf("https://elsewhere.example.org/section/page-%09d.html", i), id)
		if got, ok := g.knownLinkID(home); !ok || got != homeID {
			t.Fatalf("the home page's link forgotten after %d links", i)
		}
	}
	after := liveHeap()
	runtime.KeepAlive(g)
	held := (float64(after) - float64(before)) / (1 << 20)
	t.Logf("%d links claimed and %d left out: %.1f MiB held", n, n, held)
	if held > 20 {
		t.Errorf("the caches of known links hold %.1f MiB, want at most 20 (maxKnownLinks each)", held)
	}
}

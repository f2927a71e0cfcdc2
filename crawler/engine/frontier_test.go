package engine

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/memory"
)

// testFrontier returns a run's frontier for o, with its defaults, that
// hands out links never retrieved.
func testFrontier(t *testing.T, o Options) *frontier {
	t.Helper()
	o, err := o.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	f, err := newFrontier(context.Background(), &o, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestFrontierHandsOutShallowestFirst(t *testing.T) {
	for _, maxQueued := range []int{100, 2} { // in memory, and mostly spilled
		f := testFrontier(t, Options{Graph: memory.New(), PerHost: 100, MaxQueued: maxQueued, SpillDir: t.TempDir()})
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
		for len(depths) < 6 {
			p, _ := f.next(context.Background(), func() {})
			if p == nil {
				break
			}
			d, _ := f.depthOf(p.LinkID)
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
		f.close()
	}
}

// A sitemap's lastmod stays with its link through the queue, in memory and
// spilled, and reaches the page when it is handed out.
func TestFrontierKeepsSitemapLastMod(t *testing.T) {
	for _, maxQueued := range []int{100, 1} {
		f := testFrontier(t, Options{Graph: memory.New(), PerHost: 100, MaxQueued: maxQueued, SpillDir: t.TempDir()})
		mod := time.Date(2024, 5, 6, 7, 8, 9, 10, time.UTC)
		want := map[uuid.UUID]time.Time{}
		for i := range 3 {
			id := uuid.New()
			var lm time.Time
			if i > 0 {
				lm = mod.Add(time.Duration(i) * time.Hour)
			}
			want[id] = lm
			if ok, err := f.addListed(linkgraph.Link{ID: id, URL: "http://h/" + strconv.Itoa(i)}, 1, lm); !ok || err != nil {
				t.Fatalf("link %d not queued: %v", i, err)
			}
		}
		for range 3 {
			p, _ := f.next(context.Background(), func() {})
			if p == nil {
				t.Fatal("frontier ended early")
			}
			id := p.LinkID
			if got := p.ModifiedAt; !got.Equal(want[id]) {
				t.Errorf("MaxQueued %d: ModifiedAt = %v, want %v", maxQueued, got, want[id])
			}
			f.done(id)
		}
		if err := f.close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A sitemap that lists a link already queued (a recrawl queues every page
// due from the graph before its host's sitemap is read) still gives the
// page its lastmod when it is handed out.
func TestFrontierTakesLateSitemapLastMod(t *testing.T) {
	f := testFrontier(t, Options{Graph: memory.New(), PerHost: 100, SpillDir: t.TempDir()})
	defer f.close()
	l := linkgraph.Link{ID: uuid.New(), URL: "http://h/page"}
	if ok, err := f.add(l, 0); !ok || err != nil {
		t.Fatalf("link not queued: %v", err)
	}
	mod := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	if ok, _ := f.addListed(l, 1, mod); ok {
		t.Fatal("a link listed again was queued twice")
	}
	p, _ := f.next(context.Background(), func() {})
	if p == nil || p.LinkID != l.ID {
		t.Fatal("the link was not handed out")
	}
	if got := p.ModifiedAt; !got.Equal(mod) {
		t.Errorf("ModifiedAt = %v, want the sitemap's %v", got, mod)
	}
	f.done(l.ID)
}

// A frontier with nothing to hand out while pages are in flight asks the
// crawler for the store batches it holds (starved: see
// crawler.Frontier.Next); one with links queued, or nothing in flight,
// does not.
func TestFrontierAsksForHeldLinksWhenDry(t *testing.T) {
	f := testFrontier(t, Options{Graph: memory.New(), PerHost: 100})
	defer f.close()
	asked := 0
	starved := func() { asked++ }
	if f.nextPage(t, context.Background(), starved) != nil || asked != 0 {
		t.Fatalf("an empty frontier handed a link out or asked for %d flushes", asked)
	}
	for i := range 2 {
		if ok, err := f.add(linkgraph.Link{ID: uuid.New(), URL: "http://h/" + strconv.Itoa(i)}, 0); !ok || err != nil {
			t.Fatalf("link %d not queued: %v", i, err)
		}
	}
	if f.nextPage(t, context.Background(), starved) == nil || asked != 0 {
		t.Fatalf("first link: asked for %d flushes with a link still queued", asked)
	}
	if f.nextPage(t, context.Background(), starved) == nil {
		t.Fatal("second link not handed out")
	}
	// Both in flight, nothing queued: the next wait asks.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if f.nextPage(t, ctx, starved) != nil {
		t.Fatal("a link handed out from an empty frontier")
	}
	if asked < 1 {
		t.Errorf("asked for %d flushes, want at least one", asked)
	}
}

// nextPage is next for a test, failing it on an error.
func (f *frontier) nextPage(t *testing.T, ctx context.Context, starved func()) *crawler.Payload {
	t.Helper()
	p, err := f.next(ctx, starved)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A page admitted to a redirect's target keeps the target's host from
// looking idle until the hop's request starts, the page is parked there or
// it is done: a shared crawl releases only idle hosts, and a host released
// under such a page left its request unable to start (the page was then
// abandoned and its redirecting URL fetched again).
func TestRedirectHopKeepsTargetHostBusy(t *testing.T) {
	f := testFrontier(t, Options{Graph: memory.New(), PerHost: 1})
	idle := func(host string) bool {
		i, _ := f.hostState(host)
		return i
	}
	if !idle("target") {
		t.Fatal("an unknown host is not idle")
	}
	ids := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
	for _, id := range ids {
		f.hop(id, "target")
	}
	if idle("target") {
		t.Fatal("the target of a hop not yet started looks idle")
	}
	// The first hop's request starts: in flight, the scheduler counts it.
	release, ok := f.begin(ids[0], "target")
	if !ok {
		t.Fatal("begin refused a free host")
	}
	release()
	// The second is done without a request, the third parked there.
	f.done(ids[1])
	if idle("target") {
		t.Fatal("the target looks idle with a hop still pending")
	}
	f.park(crawler.NewPayload(ids[2], "http://target/x", time.Time{}), "target", time.Time{})
	if idle("target") {
		t.Fatal("the target looks idle with a page parked under it")
	}
	if len(f.hops) != 0 || len(f.hopsTo) != 0 {
		t.Errorf("hops left behind: %v %v", f.hops, f.hopsTo)
	}
}

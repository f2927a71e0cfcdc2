package postgres

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler/robots"
	"github.com/linksrus/linksrus/crawler/workqueue"
	"github.com/linksrus/linksrus/linkgraph"
)

// queueGraph opens a graph on a database of the test's own and stores
// links on hosts a, b and c, n per host; it returns them queued-ready.
func queueGraph(t *testing.T, n int) (*Graph, []workqueue.Link) {
	t.Helper()
	g, err := Open(t.Context(), testDatabase(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	var links []*linkgraph.Link
	var queued []workqueue.Link
	for _, h := range []string{"a", "b", "c"} {
		for i := range n {
			links = append(links, &linkgraph.Link{URL: fmt.Sprintf("http://%s/%d", h, i)})
		}
	}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	for i, l := range links {
		queued = append(queued, workqueue.Link{ID: l.ID, Host: string(rune('a' + i/n)), Depth: i % n})
	}
	return g, queued
}

func hostsOf(ls []workqueue.Lease) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Host)
	}
	slices.Sort(out)
	return out
}

// TestQueueLifecycle walks one host through enqueue, claim, pull, done and
// release, and checks that a host is held by one worker at a time.
func TestQueueLifecycle(t *testing.T) {
	ctx := t.Context()
	g, links := queueGraph(t, 3)
	q := g.WorkQueue()
	w1, w2 := uuid.New(), uuid.New()
	if err := q.Enqueue(ctx, links); err != nil {
		t.Fatal(err)
	}
	// Enqueueing again changes nothing.
	if err := q.Enqueue(ctx, links[:2]); err != nil {
		t.Fatal(err)
	}
	got, err := q.Claim(ctx, w1, 2, time.Minute, nil)
	if err != nil || len(got) != 2 {
		t.Fatalf("Claim(2) = %v, %v", got, err)
	}
	rest, err := q.Claim(ctx, w2, 5, time.Minute, nil)
	if err != nil || len(rest) != 1 {
		t.Fatalf("second worker's Claim = %v, %v; want the one host left", rest, err)
	}
	if slices.Contains(hostsOf(got), rest[0].Host) {
		t.Fatalf("host %s claimed twice", rest[0].Host)
	}
	if none, _ := q.Claim(ctx, w2, 5, time.Minute, nil); len(none) != 0 {
		t.Fatalf("Claim with every host held = %v", none)
	}

	h := rest[0].Host
	pulled, err := q.Pull(ctx, h, nil, 2)
	if err != nil || len(pulled) != 2 || pulled[0].Depth != 0 || pulled[1].Depth != 1 || pulled[0].URL == "" {
		t.Fatalf("Pull = %+v, %v; want depths 0 and 1 with URLs", pulled, err)
	}
	more, err := q.Pull(ctx, h, []uuid.UUID{pulled[0].ID, pulled[1].ID}, 10)
	if err != nil || len(more) != 1 || more[0].Depth != 2 {
		t.Fatalf("Pull skipping the first two = %+v, %v", more, err)
	}
	if err := q.Done(ctx, []uuid.UUID{pulled[0].ID, pulled[1].ID}); err != nil {
		t.Fatal(err)
	}
	// One link left: the released host stays pending, and is claimed again.
	if err := q.Release(ctx, w2, h, 0); err != nil {
		t.Fatal(err)
	}
	again, err := q.Claim(ctx, w1, 5, time.Minute, nil)
	if err != nil || len(again) != 1 || again[0].Host != h {
		t.Fatalf("Claim after release = %v, %v; want %s", again, err, h)
	}
	if err := q.Done(ctx, []uuid.UUID{more[0].ID}); err != nil {
		t.Fatal(err)
	}
	if err := q.Release(ctx, w1, h, 0); err != nil {
		t.Fatal(err)
	}
	if none, _ := q.Claim(ctx, w2, 5, time.Minute, nil); len(none) != 0 {
		t.Fatalf("a host without queued links was claimed: %v", none)
	}
	// Releasing a host one does not hold does nothing.
	if err := q.Release(ctx, w2, got[0].Host, 0); err != nil {
		t.Fatal(err)
	}
	if kept, err := q.Renew(ctx, w1, hostsOf(got), time.Minute); err != nil || len(kept) != 2 {
		t.Fatalf("Renew = %v, %v", kept, err)
	}
	if pending, err := q.Pending(ctx); err != nil || !pending {
		t.Fatalf("Pending = %v, %v", pending, err)
	}
}

// TestQueueExpiredLease: a lease that is not renewed expires; the next
// owner learns that it took an expired lease over (and adds its delay
// past the expiry), a released host passes its wait on instead, and the
// old owner learns at renewal that the host is gone.
func TestQueueExpiredLease(t *testing.T) {
	ctx := t.Context()
	g, links := queueGraph(t, 1)
	q := g.WorkQueue()
	if err := q.Enqueue(ctx, links[:1]); err != nil {
		t.Fatal(err)
	}
	dead, heir := uuid.New(), uuid.New()
	if got, err := q.Claim(ctx, dead, 1, 50*time.Millisecond, nil); err != nil || len(got) != 1 || got[0].Expired {
		t.Fatalf("Claim = %+v, %v; want the host, not taken over", got, err)
	}
	if got, _ := q.Claim(ctx, heir, 1, time.Minute, nil); len(got) != 0 {
		t.Fatalf("claimed a live lease: %v", got)
	}
	time.Sleep(100 * time.Millisecond)
	got, err := q.Claim(ctx, heir, 1, time.Minute, nil)
	if err != nil || len(got) != 1 {
		t.Fatalf("Claim of the expired lease = %v, %v", got, err)
	}
	// Expired about 50 ms ago: nothing left to wait for but the delay.
	if !got[0].Expired || got[0].Wait != 0 {
		t.Fatalf("taking over an expired lease = %+v, want Expired and no Wait", got[0])
	}
	if kept, err := q.Renew(ctx, dead, []string{got[0].Host}, time.Minute); err != nil || len(kept) != 0 {
		t.Fatalf("the old owner's Renew = %v, %v; want the host gone", kept, err)
	}
	// A released host passes its delay on.
	if err := q.Release(ctx, heir, got[0].Host, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	got, err = q.Claim(ctx, dead, 1, time.Minute, nil)
	if err != nil || len(got) != 1 || got[0].Wait < 2500*time.Millisecond || got[0].Expired {
		t.Fatalf("Claim after a release with a 3 s wait = %+v, %v", got, err)
	}
}

// TestQueueEnqueueDuringRelease races links queued for a host against its
// release: whatever the order, the host must not end up with queued links
// and no pending mark (nobody would ever claim it).
func TestQueueEnqueueDuringRelease(t *testing.T) {
	ctx := t.Context()
	g, links := queueGraph(t, 40)
	q := g.WorkQueue()
	w := uuid.New()
	var a []workqueue.Link
	for _, l := range links {
		if l.Host == "a" {
			a = append(a, l)
		}
	}
	for i := 0; i+1 < len(a); i += 2 {
		if err := q.Enqueue(ctx, a[i:i+1]); err != nil {
			t.Fatal(err)
		}
		if got, err := q.Claim(ctx, w, 1, time.Minute, nil); err != nil || len(got) != 1 {
			t.Fatalf("Claim = %v, %v", got, err)
		}
		if err := q.Done(ctx, []uuid.UUID{a[i].ID}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Go(func() {
			if err := q.Release(ctx, w, "a", 0); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if err := q.Enqueue(ctx, a[i+1:i+2]); err != nil {
				t.Error(err)
			}
		})
		wg.Wait()
		got, err := q.Claim(ctx, w, 1, time.Minute, nil)
		if err != nil || len(got) != 1 {
			t.Fatalf("round %d: host a has a queued link but cannot be claimed (%v, %v)", i/2, got, err)
		}
		if err := q.Done(ctx, []uuid.UUID{a[i+1].ID}); err != nil {
			t.Fatal(err)
		}
		if err := q.Release(ctx, w, "a", 0); err != nil {
			t.Fatal(err)
		}
	}
}

// TestQueueRobotsAndHeartbeat: a cached robots.txt comes with the host's
// next claim while it is fresh; heartbeats tell a process how many hosts
// the hungriest other process holds.
func TestQueueRobotsAndHeartbeat(t *testing.T) {
	ctx := t.Context()
	g, links := queueGraph(t, 1)
	q := g.WorkQueue()
	w1, w2 := uuid.New(), uuid.New()
	if err := q.Enqueue(ctx, links[:1]); err != nil {
		t.Fatal(err)
	}
	got, _ := q.Claim(ctx, w1, 1, time.Minute, nil)
	if len(got) != 1 || got[0].Robots != nil {
		t.Fatalf("first Claim = %+v; want no robots.txt cached", got)
	}
	rc := workqueue.Robots{Origin: "http://a", Basis: 1, Body: []byte("User-agent: *\nDisallow: /x\n"), TTL: time.Hour}
	if err := q.SaveRobots(ctx, "a", rc); err != nil {
		t.Fatal(err)
	}
	if err := q.Release(ctx, w1, "a", 0); err != nil {
		t.Fatal(err)
	}
	got, _ = q.Claim(ctx, w2, 1, time.Minute, nil)
	if len(got) != 1 || got[0].Robots == nil || string(got[0].Robots.Body) != string(rc.Body) ||
		got[0].Robots.Origin != rc.Origin || got[0].Robots.TTL < 59*time.Minute {
		t.Fatalf("Claim after SaveRobots = %+v", got)
	}
	// Failed attempts are kept with the last error and when to try again,
	// by the database's clock.
	failed := workqueue.Robots{Origin: "http://a", Basis: robots.BasisUnreachable, TTL: time.Minute,
		Failures: 2, Error: "robots: http://a/robots.txt answered 503", Retry: 30 * time.Second}
	if err := q.SaveRobots(ctx, "a", failed); err != nil {
		t.Fatal(err)
	}
	if err := q.Release(ctx, w2, "a", 0); err != nil {
		t.Fatal(err)
	}
	got, _ = q.Claim(ctx, w1, 1, time.Minute, nil)
	if len(got) != 1 || got[0].Robots == nil {
		t.Fatalf("Claim after failures saved = %+v", got)
	}
	if r := got[0].Robots; r.Basis != failed.Basis || r.Failures != 2 || r.Error != failed.Error ||
		r.Retry < 29*time.Second || r.Retry > failed.Retry || r.Body != nil {
		t.Fatalf("Claim after failures saved: robots %+v, want %+v", *r, failed)
	}

	want := workqueue.Status{Workers: 1, FewestHungry: -1, PendingHosts: 1}
	if st, err := q.Heartbeat(ctx, w1, workqueue.WorkerStatus{Hosts: 3}, time.Minute); err != nil || st != want {
		t.Fatalf("Heartbeat alone = %+v, %v; want %+v", st, err, want)
	}
	if _, err := q.Heartbeat(ctx, w2, workqueue.WorkerStatus{Hosts: 0, Hungry: true}, time.Minute); err != nil {
		t.Fatal(err)
	}
	want = workqueue.Status{Workers: 2, FewestHungry: 0, PendingHosts: 1}
	if st, err := q.Heartbeat(ctx, w1, workqueue.WorkerStatus{Hosts: 3}, time.Minute); err != nil || st != want {
		t.Fatalf("Heartbeat with a hungry process holding nothing = %+v, %v; want %+v", st, err, want)
	}
	// A process not seen within alive does not count.
	time.Sleep(20 * time.Millisecond)
	if st, _ := q.Heartbeat(ctx, w1, workqueue.WorkerStatus{Hosts: 3}, 10*time.Millisecond); st.Workers != 1 || st.FewestHungry != -1 {
		t.Fatalf("Heartbeat counted a process not seen lately: %+v", st)
	}
	if err := q.Leave(ctx, w2); err != nil {
		t.Fatal(err)
	}
	if st, _ := q.Heartbeat(ctx, w1, workqueue.WorkerStatus{Hosts: 3}, time.Minute); st.Workers != 1 || st.FewestHungry != -1 {
		t.Fatalf("Heartbeat after the hungry process left = %+v", st)
	}
}

// TestQueueWaitForWork: a process waiting for work is woken by another's
// Enqueue, and otherwise waits out its time without queries.
func TestQueueWaitForWork(t *testing.T) {
	ctx := t.Context()
	g, links := queueGraph(t, 1)
	waiter, other := g.WorkQueue().(*Queue), g.WorkQueue()
	defer waiter.Close()
	if woken, err := waiter.WaitForWork(ctx, time.Second); err != nil || !woken { // starts listening
		t.Fatalf("first WaitForWork = %v, %v; want it to report listening", woken, err)
	}
	before := waiter.Queries()
	start := time.Now()
	if woken, err := waiter.WaitForWork(ctx, 100*time.Millisecond); err != nil || woken {
		t.Fatalf("WaitForWork with nothing queued = %v, %v", woken, err)
	}
	if waited := time.Since(start); waited < 90*time.Millisecond {
		t.Fatalf("WaitForWork returned after %v with nothing queued", waited)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		if err := other.Enqueue(context.Background(), links[:1]); err != nil {
			t.Error(err)
		}
	}()
	start = time.Now()
	if woken, err := waiter.WaitForWork(ctx, 20*time.Second); err != nil || !woken {
		t.Fatalf("WaitForWork while another process queues = %v, %v", woken, err)
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Fatalf("WaitForWork not woken by Enqueue (%v)", waited)
	}
	if n := waiter.Queries() - before; n != 0 {
		t.Fatalf("waiting sent %d queries", n)
	}
}

// TestQueuesDoNotPileUp: a process that takes a queue per crawl round
// (the engine takes one per Engine) leaves nothing behind in the graph
// once each is closed, a queue that never listened holds nothing, and the
// graph's Close gives back the connection of a queue still listening.
func TestQueuesDoNotPileUp(t *testing.T) {
	ctx := t.Context()
	g, _ := queueGraph(t, 1)
	for range 3 {
		q := g.WorkQueue()
		if woken, err := q.WaitForWork(ctx, time.Second); err != nil || !woken { // starts listening
			t.Fatalf("first WaitForWork = %v, %v; want it to report listening", woken, err)
		}
		if err := q.(*Queue).Close(); err != nil {
			t.Fatal(err)
		}
	}
	_ = g.WorkQueue()
	g.mu.Lock()
	n := len(g.queues)
	g.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d queues kept by the graph after every one was closed, want 0", n)
	}

	listening := g.WorkQueue()
	if _, err := listening.WaitForWork(ctx, time.Second); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		_ = g.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the graph's Close waits for a listening queue's connection")
	}
	if _, err := listening.WaitForWork(ctx, time.Second); err == nil {
		t.Fatal("WaitForWork on a closed graph succeeded")
	}
}

// BenchmarkClaim measures claims per second: each iteration claims one
// host out of many with queued work and releases it, as processes do when
// they take a host, work it and give it back.
func BenchmarkClaim(b *testing.B) {
	ctx := context.Background()
	g, err := Open(ctx, testDatabase(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	const hosts = 10_000
	var links []*linkgraph.Link
	for i := range hosts {
		links = append(links, &linkgraph.Link{URL: fmt.Sprintf("http://h%d.test/", i)})
	}
	for i := 0; i < len(links); i += 1000 {
		if err := g.UpsertLinks(links[i : i+1000]); err != nil {
			b.Fatal(err)
		}
	}
	q := g.WorkQueue()
	var queued []workqueue.Link
	for i, l := range links {
		queued = append(queued, workqueue.Link{ID: l.ID, Host: fmt.Sprintf("h%d.test", i)})
	}
	for i := 0; i < len(queued); i += 1000 {
		if err := q.Enqueue(ctx, queued[i:i+1000]); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		w := uuid.New()
		for pb.Next() {
			got, err := q.Claim(ctx, w, 1, time.Minute, nil)
			if err != nil || len(got) != 1 {
				b.Errorf("Claim = %v, %v", got, err)
				return
			}
			if err := q.Release(ctx, w, got[0].Host, 0); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "claims/s")
}

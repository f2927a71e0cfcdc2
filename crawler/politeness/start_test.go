package politeness

import (
	"context"
	"testing"
	"time"
)

// TestDelayCountsFromStart holds a handed-out lease back before its request
// starts, as a buffered channel between the frontier and the fetch workers
// would: the host's next item must not be handed out until the delay has
// passed since the first request actually started.
func TestDelayCountsFromStart(t *testing.T) {
	const delay = 80 * time.Millisecond
	s := newSched(t, Options{MaxInFlight: 4, MinDelay: delay})
	ctx := context.Background()
	for _, v := range []string{"a", "b"} {
		if err := s.Push(ctx, "h", v); err != nil {
			t.Fatal(err)
		}
	}
	first, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 2*delay)
	defer cancel()
	if _, err := s.Next(short); err == nil {
		t.Fatal("a second item was handed out while the first had not started")
	}
	started := time.Now()
	first.Start()
	second, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if gap := time.Since(started); gap < delay-5*time.Millisecond {
		t.Fatalf("second item handed out %v after the first start, want >= %v", gap, delay)
	}
	second.Start()
	second.Release()
	first.Release()
}

// TestReleaseWithoutStart frees the slot and the host's turn without
// counting a request.
func TestReleaseWithoutStart(t *testing.T) {
	s := newSched(t, Options{MaxInFlight: 1, MinDelay: time.Hour})
	ctx := context.Background()
	for _, v := range []string{"a", "b"} {
		if err := s.Push(ctx, "h", v); err != nil {
			t.Fatal(err)
		}
	}
	l, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	l.Start() // after Release: no effect
	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	l2, err := s.Next(short)
	if err != nil {
		t.Fatalf("host still blocked after a lease was released unstarted: %v", err)
	}
	l2.Release()
}

func TestTryAcquireDeferPause(t *testing.T) {
	s := newSched(t, Options{MaxInFlight: 1, MinDelay: 50 * time.Millisecond})
	rel, _, ok := s.TryAcquire("h")
	if !ok {
		t.Fatal("TryAcquire on an idle host failed")
	}
	if _, _, ok := s.TryAcquire("h"); ok {
		t.Fatal("TryAcquire beyond MaxInFlight succeeded")
	}
	rel()
	_, at, ok := s.TryAcquire("h")
	if ok || at.IsZero() || time.Until(at) <= 0 {
		t.Fatalf("TryAcquire within the delay: ok=%v retryAt=%v", ok, at)
	}

	until := time.Now().Add(150 * time.Millisecond)
	s.Defer("d", until)
	if _, at, ok := s.TryAcquire("d"); ok || !at.Equal(until) {
		t.Fatalf("TryAcquire on a deferred host: ok=%v retryAt=%v want %v", ok, at, until)
	}

	ctx := context.Background()
	s.Pause("p")
	if err := s.Push(ctx, "p", "x"); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := s.Next(short); err == nil {
		t.Fatal("Next handed out an item of a paused host")
	}
	if rel, _, ok := s.TryAcquire("p"); !ok {
		t.Fatal("TryAcquire refused on a paused host")
	} else {
		rel()
	}
	s.Resume("p")
	l, err := s.Next(ctx)
	if err != nil || l.Value != "x" {
		t.Fatalf("Next after Resume: %v %v", l, err)
	}
	l.Release()
}

// TestDelayCountsFromSent starts a request that reaches its connection
// late (Sent well after Acquire, as after a slow dial): with UntilSent the
// next request waits for the write and then the whole delay, and Next
// hands out no queued item meanwhile. Without UntilSent, Sent still moves
// the delay on.
func TestDelayCountsFromSent(t *testing.T) {
	const delay = 80 * time.Millisecond
	const late = 3 * delay / 2 // the first write, after its start
	for _, untilSent := range []bool{true, false} {
		s := newSched(t, Options{MaxInFlight: 4, MinDelay: delay, UntilSent: untilSent})
		ctx := context.Background()
		if err := s.Push(ctx, "h", "queued"); err != nil {
			t.Fatal(err)
		}
		release, err := s.Acquire(ctx, "h")
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if untilSent {
			// Past the delay, but the first request is not written yet.
			short, cancel := context.WithTimeout(ctx, late)
			_, err := s.Next(short)
			cancel()
			if err == nil {
				t.Fatal("UntilSent: an item was handed out while the started request was unsent")
			}
		} else {
			time.Sleep(late / 2)
		}
		s.Sent("h")
		sent := time.Now()
		l, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if gap := time.Since(sent); gap < delay-5*time.Millisecond {
			t.Errorf("UntilSent %v: next item handed out %v after the first request was written, want >= %v", untilSent, gap, delay)
		}
		l.Release()
	}
}

// TestReleaseUnsentGivesTheTurnBack: a request that fails before its write
// (a refused dial) must not keep its host waiting for a Sent that never
// comes.
func TestReleaseUnsentGivesTheTurnBack(t *testing.T) {
	const delay = 40 * time.Millisecond
	s := newSched(t, Options{MaxInFlight: 2, MinDelay: delay, UntilSent: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*delay)
	defer cancel()
	// Through the queue (Lease.Start) and outside it (Acquire).
	if err := s.Push(ctx, "h", "a"); err != nil {
		t.Fatal(err)
	}
	l, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l.Start()
	l.Release()
	release, err := s.Acquire(ctx, "h")
	if err != nil {
		t.Fatalf("Acquire after a lease released unsent: %v", err)
	}
	release()
	release, err = s.Acquire(ctx, "h")
	if err != nil {
		t.Fatalf("Acquire after a slot released unsent: %v", err)
	}
	s.Sent("h")
	release()
	// Two in flight, the first sent: the second's turn holds until its
	// own write.
	r1, err := s.Acquire(ctx, "h")
	if err != nil {
		t.Fatal(err)
	}
	s.Sent("h")
	r2, err := s.Acquire(ctx, "h")
	if err != nil {
		t.Fatal(err)
	}
	r1()
	if _, _, ok := s.TryAcquire("h"); ok {
		t.Error("a slot was taken while the second request, unsent, held the host's turn")
	}
	r2()
	release, err = s.Acquire(ctx, "h")
	if err != nil {
		t.Fatalf("Acquire once both were released: %v", err)
	}
	release()
}

// TestDeferPastDelayUsesTheHostsDelay: a host whose last request somebody
// else may have written at a given time starts its next one the host's
// delay (a Crawl-delay above MinDelay included) after that time, not
// before; a time long past changes nothing.
func TestDeferPastDelayUsesTheHostsDelay(t *testing.T) {
	s := newSched(t, Options{MaxInFlight: 1, MinDelay: 20 * time.Millisecond})
	ctx := context.Background()
	s.SetDelay("h", 150*time.Millisecond)
	at := time.Now().Add(-50 * time.Millisecond)
	s.DeferPastDelay("h", at)
	s.DeferPastDelay("old", time.Now().Add(-time.Hour))
	for _, host := range []string{"h", "old"} {
		if err := s.Push(ctx, host, host); err != nil {
			t.Fatal(err)
		}
	}
	l, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l.Value != "old" {
		t.Fatalf("first item = %q, want the host with nothing to wait for", l.Value)
	}
	l.Release()
	l, err = s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if gap := time.Since(at); gap < 150*time.Millisecond {
		t.Fatalf("h handed out %v after its last possible write, want >= its 150ms Crawl-delay", gap)
	}
}

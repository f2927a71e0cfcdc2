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

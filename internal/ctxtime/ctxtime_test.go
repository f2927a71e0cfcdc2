package ctxtime_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/linksrus/linksrus/internal/ctxtime"
)

// returnsWithin runs f and fails the test if it has not returned within
// limit, so that a sleep that never ends fails instead of hanging.
func returnsWithin(t *testing.T, limit time.Duration, f func() error) (time.Duration, error) {
	t.Helper()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- f() }()
	select {
	case err := <-done:
		return time.Since(start), err
	case <-time.After(limit):
		t.Fatalf("still sleeping after %v", limit)
		return 0, nil
	}
}

func TestSleepWaitsForD(t *testing.T) {
	const d = 30 * time.Millisecond
	took, err := returnsWithin(t, 10*time.Second, func() error { return ctxtime.Sleep(context.Background(), d) })
	if err != nil {
		t.Fatalf("Sleep = %v, want nil", err)
	}
	if took < d {
		t.Fatalf("Sleep returned after %v, want at least %v", took, d)
	}
}

func TestSleepCutShortByCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := returnsWithin(t, 10*time.Second, func() error { return ctxtime.Sleep(ctx, time.Hour) })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep = %v, want context.Canceled", err)
	}
}

func TestSleepCutShortByDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := returnsWithin(t, 10*time.Second, func() error { return ctxtime.Sleep(ctx, time.Hour) })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Sleep = %v, want context.DeadlineExceeded", err)
	}
}

// An ended ctx is reported whatever d is, even when no wait was due.
func TestSleepEndedContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, d := range []time.Duration{-time.Second, 0, time.Nanosecond, time.Hour, ctxtime.Forever} {
		for range 100 { // a select between ready cases would pick at random
			if err := ctxtime.Sleep(ctx, d); !errors.Is(err, context.Canceled) {
				t.Fatalf("Sleep(ended ctx, %v) = %v, want context.Canceled", d, err)
			}
		}
	}
}

func TestSleepNonPositiveReturnsAtOnce(t *testing.T) {
	for _, d := range []time.Duration{0, -1, -time.Hour, time.Duration(-1 << 63)} {
		took, err := returnsWithin(t, 10*time.Second, func() error { return ctxtime.Sleep(context.Background(), d) })
		if err != nil || took > time.Second {
			t.Fatalf("Sleep(%v) = %v after %v, want nil at once", d, err, took)
		}
	}
}

func TestSleepForeverEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := returnsWithin(t, 10*time.Second, func() error { return ctxtime.Sleep(ctx, ctxtime.Forever) })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep(Forever) = %v, want context.Canceled", err)
	}
}

func TestSleepOrWakeWokenEarly(t *testing.T) {
	for _, d := range []time.Duration{time.Hour, ctxtime.Forever} {
		wake := make(chan struct{})
		time.AfterFunc(20*time.Millisecond, func() { close(wake) })
		_, err := returnsWithin(t, 10*time.Second, func() error {
			return ctxtime.SleepOrWake(context.Background(), wake, d)
		})
		if err != nil {
			t.Fatalf("SleepOrWake(%v) woken = %v, want nil", d, err)
		}
	}
	// A value sent wakes too, not only a close.
	wake := make(chan struct{}, 1)
	wake <- struct{}{}
	if _, err := returnsWithin(t, 10*time.Second, func() error {
		return ctxtime.SleepOrWake(context.Background(), wake, time.Hour)
	}); err != nil {
		t.Fatalf("SleepOrWake woken by a send = %v, want nil", err)
	}
}

func TestSleepOrWakeElapsesWithoutWake(t *testing.T) {
	const d = 30 * time.Millisecond
	wake := make(chan struct{})
	took, err := returnsWithin(t, 10*time.Second, func() error {
		return ctxtime.SleepOrWake(context.Background(), wake, d)
	})
	if err != nil || took < d {
		t.Fatalf("SleepOrWake = %v after %v, want nil after at least %v", err, took, d)
	}
}

func TestSleepOrWakeCutShortByCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := returnsWithin(t, 10*time.Second, func() error {
		return ctxtime.SleepOrWake(ctx, make(chan struct{}), ctxtime.Forever)
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("SleepOrWake = %v, want context.Canceled", err)
	}
}

// An ended ctx wins over a wake that is ready too.
func TestSleepOrWakeEndedContextBeatsWake(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wake := make(chan struct{})
	close(wake)
	for range 100 {
		if err := ctxtime.SleepOrWake(ctx, wake, time.Hour); !errors.Is(err, context.Canceled) {
			t.Fatalf("SleepOrWake(ended ctx, closed wake) = %v, want context.Canceled", err)
		}
	}
}

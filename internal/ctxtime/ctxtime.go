// Package ctxtime waits for a time to pass unless a context ends first: the
// one sleep of the module, used by every retry back-off, poll and delay
// that must stop when its caller gives up.
package ctxtime

import (
	"context"
	"math"
	"time"
)

// Forever is a duration no timer is set for: SleepOrWake(ctx, wake,
// Forever) waits for wake or ctx alone, and Sleep(ctx, Forever) for ctx.
const Forever time.Duration = math.MaxInt64

// Sleep waits for d, or less if ctx ends first, in which case it returns
// ctx.Err(). A ctx that has already ended returns its error at once,
// whatever d; otherwise a d <= 0 returns nil at once.
func Sleep(ctx context.Context, d time.Duration) error {
	return SleepOrWake(ctx, nil, d)
}

// SleepOrWake is Sleep that wake also ends, returning nil, when it is
// closed or receives a value: a waiter sleeps until its next deadline but
// looks again as soon as something changes. A nil wake never wakes.
func SleepOrWake(ctx context.Context, wake <-chan struct{}, d time.Duration) error {
	// Checked first so that an ended ctx wins deterministically over a
	// ready wake or a d <= 0, rather than by select's random choice.
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	var elapsed <-chan time.Time
	if d != Forever {
		t := time.NewTimer(d)
		defer t.Stop()
		elapsed = t.C
	}
	select {
	case <-elapsed:
		return nil
	case <-wake:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

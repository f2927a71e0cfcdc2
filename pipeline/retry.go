package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/linksrus/linksrus/internal/ctxtime"
)

// RetryPolicy configures Retry. The zero value retries every error up to 3
// attempts in all, waiting about 10ms, then 20ms, with ±20% jitter.
//
// It retries a processor in place and knows nothing of what the processor
// does; the crawler's HTTP retries have a policy of their own
// (crawler.RetryPolicy: statuses, Retry-After, and a page parked rather
// than a worker waiting), which counts retries where this counts attempts.
type RetryPolicy struct {
	// MaxAttempts is the number of calls, the first included; 0 means 3.
	MaxAttempts int
	// IsTransient reports whether a failed call may succeed if retried.
	// Errors it rejects are returned at once. nil treats every error as
	// transient.
	IsTransient func(error) bool
	// InitialBackoff is the wait before the second attempt; 0 means 10ms.
	InitialBackoff time.Duration
	// MaxBackoff caps every wait; 0 means 1s.
	MaxBackoff time.Duration
	// Multiplier grows the wait after each attempt; 0 means 2. It must be
	// at least 1.
	Multiplier float64
	// Jitter spreads each wait uniformly over ±Jitter of its nominal value,
	// so that payloads failing together do not retry together; 0 means
	// 0.2. It must be in [0, 1]; use a tiny positive value for almost none.
	Jitter float64
}

func (p RetryPolicy) withDefaults() (RetryPolicy, error) {
	if p.MaxAttempts == 0 {
		p.MaxAttempts = 3
	}
	if p.InitialBackoff == 0 {
		p.InitialBackoff = 10 * time.Millisecond
	}
	if p.MaxBackoff == 0 {
		p.MaxBackoff = time.Second
	}
	if p.Multiplier == 0 {
		p.Multiplier = 2
	}
	if p.Jitter == 0 {
		p.Jitter = 0.2
	}
	switch {
	case p.MaxAttempts < 1:
		return p, fmt.Errorf("%w: retry: MaxAttempts %d (want >= 1)", ErrInvalidConfig, p.MaxAttempts)
	case p.InitialBackoff < 0 || p.MaxBackoff < 0:
		return p, fmt.Errorf("%w: retry: negative backoff", ErrInvalidConfig)
	case p.Multiplier < 1:
		return p, fmt.Errorf("%w: retry: Multiplier %g (want >= 1)", ErrInvalidConfig, p.Multiplier)
	case p.Jitter < 0 || p.Jitter > 1:
		return p, fmt.Errorf("%w: retry: Jitter %g (want within [0, 1])", ErrInvalidConfig, p.Jitter)
	}
	return p, nil
}

// backoff returns the wait after the given failed attempt, from 1.
func (p RetryPolicy) backoff(attempt int) time.Duration {
	d := float64(p.InitialBackoff)
	for i := 1; i < attempt && d < float64(p.MaxBackoff); i++ {
		d *= p.Multiplier
	}
	d = min(d, float64(p.MaxBackoff))
	d *= 1 + p.Jitter*(2*rand.Float64()-1)
	return min(time.Duration(d), p.MaxBackoff)
}

// Retry returns a Processor that calls proc again, with exponential backoff
// and jitter, while it fails with a transient error. It returns on the first
// success, at the first error that is not transient, after
// policy.MaxAttempts calls (with an error wrapping ErrRetriesExhausted and
// the last error), or when ctx is done during a wait (with an error wrapping
// ctx.Err() and the last error).
//
// Every attempt gets the same payload, so proc must leave it usable when it
// fails. An invalid policy or a nil proc makes every call fail with
// ErrInvalidConfig.
func Retry(proc Processor, policy RetryPolicy) Processor {
	policy, err := policy.withDefaults()
	if err == nil && proc == nil {
		err = fmt.Errorf("%w: retry: nil processor", ErrInvalidConfig)
	}
	if err != nil {
		return ProcessorFunc(func(context.Context, Payload) (Payload, error) { return nil, err })
	}
	return ProcessorFunc(func(ctx context.Context, p Payload) (Payload, error) {
		for attempt := 1; ; attempt++ {
			out, err := proc.Process(ctx, p)
			switch {
			case err == nil:
				return out, nil
			case policy.IsTransient != nil && !policy.IsTransient(err):
				return nil, err
			case attempt == policy.MaxAttempts:
				return nil, fmt.Errorf("%w after %d attempts: %w", ErrRetriesExhausted, attempt, err)
			}
			if werr := ctxtime.Sleep(ctx, policy.backoff(attempt)); werr != nil {
				return nil, fmt.Errorf("retry stopped after %d attempts: %w", attempt, errors.Join(werr, err))
			}
		}
	})
}

package pipeline_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linksrus/linksrus/pipeline"
)

var errTransient = errors.New("transient")

// flaky fails with errTransient until it has been called failures times.
func flaky(failures int, calls *atomic.Int64) pipeline.Processor {
	return pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		if calls.Add(1) <= int64(failures) {
			return nil, errTransient
		}
		return p, nil
	})
}

var fastRetry = pipeline.RetryPolicy{
	MaxAttempts:    5,
	IsTransient:    func(err error) bool { return errors.Is(err, errTransient) },
	InitialBackoff: time.Microsecond,
	MaxBackoff:     time.Millisecond,
}

func TestRetryReturnsOnFirstSuccess(t *testing.T) {
	var calls atomic.Int64
	proc := pipeline.Retry(flaky(2, &calls), fastRetry)
	var l ledger
	p := l.newPayload(1)
	out, err := proc.Process(context.Background(), p)
	if err != nil || out != pipeline.Payload(p) {
		t.Fatalf("Process = %v, %v; want the payload back", out, err)
	}
	if c := calls.Load(); c != 3 {
		t.Errorf("%d calls, want 3: two failures and the success, nothing after", c)
	}
}

func TestRetryNonTransientErrorIsNotRetried(t *testing.T) {
	var calls atomic.Int64
	proc := pipeline.Retry(pipeline.ProcessorFunc(func(context.Context, pipeline.Payload) (pipeline.Payload, error) {
		calls.Add(1)
		return nil, errBoom
	}), fastRetry)
	if _, err := proc.Process(context.Background(), nil); !errors.Is(err, errBoom) {
		t.Fatalf("Process = %v, want errBoom", err)
	}
	if c := calls.Load(); c != 1 {
		t.Errorf("%d calls, want 1", c)
	}
}

func TestRetryExhausted(t *testing.T) {
	var calls atomic.Int64
	proc := pipeline.Retry(flaky(100, &calls), fastRetry)
	_, err := proc.Process(context.Background(), nil)
	if !errors.Is(err, pipeline.ErrRetriesExhausted) || !errors.Is(err, errTransient) {
		t.Fatalf("Process = %v, want ErrRetriesExhausted wrapping the last error", err)
	}
	if c := calls.Load(); c != 5 {
		t.Errorf("%d calls, want MaxAttempts = 5", c)
	}
}

func TestRetryBackoffGrowsAndStopsOnCancel(t *testing.T) {
	var calls atomic.Int64
	var times []time.Time
	var mu sync.Mutex
	proc := pipeline.Retry(pipeline.ProcessorFunc(func(context.Context, pipeline.Payload) (pipeline.Payload, error) {
		mu.Lock()
		times = append(times, time.Now())
		mu.Unlock()
		calls.Add(1)
		return nil, errTransient
	}), pipeline.RetryPolicy{MaxAttempts: 100, InitialBackoff: 5 * time.Millisecond, MaxBackoff: time.Hour, Multiplier: 2, Jitter: 0.1})

	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := proc.Process(ctx, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, errTransient) {
		t.Fatalf("Process = %v, want the context's error and the last error", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Process took %v after the deadline, want a prompt return", d)
	}
	// Timers never fire early, so wait i lasts at least its nominal
	// 5ms × 2^i less the 10% jitter: the waits grow exponentially.
	mu.Lock()
	defer mu.Unlock()
	if len(times) < 4 {
		t.Fatalf("%d attempts before the deadline, want at least 4", len(times))
	}
	nominal := 5 * time.Millisecond
	for i := 1; i < len(times); i++ {
		if wait := times[i].Sub(times[i-1]); float64(wait) < 0.9*float64(nominal) {
			t.Errorf("wait %d = %v, want at least 0.9 × %v", i, wait, nominal)
		}
		nominal *= 2
	}
}

func TestRetryInvalidPolicy(t *testing.T) {
	for _, pol := range []pipeline.RetryPolicy{{MaxAttempts: -1}, {Multiplier: 0.5}, {Jitter: 2}, {InitialBackoff: -time.Second}} {
		if _, err := pipeline.Retry(passThrough, pol).Process(context.Background(), nil); !errors.Is(err, pipeline.ErrInvalidConfig) {
			t.Errorf("policy %+v: Process = %v, want ErrInvalidConfig", pol, err)
		}
	}
	if _, err := pipeline.Retry(nil, pipeline.RetryPolicy{}).Process(context.Background(), nil); !errors.Is(err, pipeline.ErrInvalidConfig) {
		t.Errorf("nil processor: Process = %v, want ErrInvalidConfig", err)
	}
}

func TestRetryInPipeline(t *testing.T) {
	var l ledger
	var calls atomic.Int64
	sink := &collectSink{}
	// Every third call fails once; retries absorb it.
	proc := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		if calls.Add(1)%3 == 0 {
			return nil, errTransient
		}
		return p, nil
	})
	p := pipeline.New(pipeline.FixedWorkerPool(pipeline.Retry(proc, fastRetry), 3))
	if err := p.Process(context.Background(), &sliceSource{l: &l, n: 100}, sink); err != nil {
		t.Fatalf("Process: %v", err)
	}
	if got := len(sink.got()); got != 100 {
		t.Errorf("sink got %d payloads, want 100", got)
	}
	l.check(t)
}

func TestDeadLetterKeepsTheRunGoing(t *testing.T) {
	var l ledger
	sink := &collectSink{}
	var mu sync.Mutex
	var dead []int
	dl := pipeline.DeadLetterFunc(func(_ context.Context, p pipeline.Payload, err error) error {
		if !errors.Is(err, errBoom) {
			t.Errorf("dead letter got error %v, want errBoom", err)
		}
		mu.Lock()
		dead = append(dead, p.(*testPayload).id)
		mu.Unlock()
		return nil
	})
	failOdd := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		if p.(*testPayload).id%2 == 1 {
			return nil, errBoom
		}
		return p, nil
	})
	p := pipeline.New(pipeline.FIFO(pipeline.DeadLetter(failOdd, dl)))
	if err := p.Process(context.Background(), &sliceSource{l: &l, n: 20}, sink); err != nil {
		t.Fatalf("Process: %v", err)
	}
	if !slices.Equal(dead, []int{1, 3, 5, 7, 9, 11, 13, 15, 17, 19}) {
		t.Errorf("dead letters = %v, want the odd ids", dead)
	}
	if !slices.Equal(sink.got(), []int{0, 2, 4, 6, 8, 10, 12, 14, 16, 18}) {
		t.Errorf("sink got %v, want the even ids", sink.got())
	}
	l.check(t)
}

func TestDeadLetterSinkErrorFailsTheRun(t *testing.T) {
	var l ledger
	errDL := errors.New("dead-letter queue down")
	dl := pipeline.DeadLetterFunc(func(context.Context, pipeline.Payload, error) error { return errDL })
	fail := pipeline.ProcessorFunc(func(context.Context, pipeline.Payload) (pipeline.Payload, error) { return nil, errBoom })
	err := pipeline.New(pipeline.FIFO(pipeline.DeadLetter(fail, dl))).Process(context.Background(), &sliceSource{l: &l, n: 20}, &collectSink{})
	if !errors.Is(err, errDL) || !errors.Is(err, errBoom) {
		t.Fatalf("Process = %v, want both the dead-letter and the processing error", err)
	}
	l.check(t)
	if _, err := pipeline.DeadLetter(passThrough, nil).Process(context.Background(), nil); !errors.Is(err, pipeline.ErrInvalidConfig) {
		t.Errorf("nil sink: Process = %v, want ErrInvalidConfig", err)
	}
}

package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-multierror"
	"github.com/linksrus/linksrus/pipeline"
)

var errBoom = errors.New("boom")

// runners returns one instance of every built-in runner around proc, for
// tests of contracts they all share.
func runners(proc pipeline.Processor) map[string]pipeline.StageRunner {
	return map[string]pipeline.StageRunner{
		"FIFO":              pipeline.FIFO(proc),
		"FixedWorkerPool":   pipeline.FixedWorkerPool(proc, 3),
		"DynamicWorkerPool": pipeline.DynamicWorkerPool(proc, 3),
		"OrderedWorkerPool": pipeline.OrderedWorkerPool(proc, 3),
		"Broadcast":         pipeline.Broadcast(proc, proc),
		"Batch":             pipeline.Batch(perPayload(proc), 4, time.Millisecond),
	}
}

// perPayload adapts a Processor to a BatchProcessor, so that the shared
// tests exercise Batch with the same per-payload behaviour.
func perPayload(proc pipeline.Processor) pipeline.BatchProcessor {
	return pipeline.BatchProcessorFunc(func(ctx context.Context, batch []pipeline.Payload) error {
		for i, p := range batch {
			q, err := proc.Process(ctx, p)
			if err != nil {
				return err
			}
			batch[i] = q
		}
		return nil
	})
}

// within fails the test if f does not return within d: a hang is a bug.
func within(t *testing.T, d time.Duration, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("Process did not return within %v", d)
		return nil
	}
}

func TestZeroStagesCopiesSourceToSink(t *testing.T) {
	var l ledger
	sink := &collectSink{}
	p := pipeline.New()
	if err := p.Process(context.Background(), &sliceSource{l: &l, n: 100}, sink); err != nil {
		t.Fatalf("Process: %v", err)
	}
	want := make([]int, 100)
	for i := range want {
		want[i] = i
	}
	if got := sink.got(); !slices.Equal(got, want) {
		t.Errorf("sink got %v, want 0..99 in order", got)
	}
	st := p.Stats()
	if st.Emitted != 100 || st.Consumed != 100 || len(st.Stages) != 0 {
		t.Errorf("stats = %+v, want 100 emitted and consumed, no stages", st)
	}
	l.check(t)
}

func TestZeroStagesWithErrors(t *testing.T) {
	var l ledger
	err := pipeline.New().Process(context.Background(), &sliceSource{l: &l, n: 10}, &collectSink{
		consume: func(_ context.Context, p *testPayload) error {
			if p.id == 3 {
				return errBoom
			}
			return nil
		},
	})
	var perr *pipeline.Error
	if !errors.Is(err, errBoom) || !errors.As(err, &perr) || perr.Component != pipeline.ComponentSink {
		t.Errorf("Process = %v, want the sink's error located at the sink", err)
	}
	l.check(t)
}

func TestInvalidConfiguration(t *testing.T) {
	batchNoop := pipeline.BatchProcessorFunc(func(context.Context, []pipeline.Payload) error { return nil })
	cases := map[string]struct {
		p      *pipeline.Pipeline
		noSrc  bool
		noSink bool
	}{
		"nil source":               {p: pipeline.New(), noSrc: true},
		"nil sink":                 {p: pipeline.New(), noSink: true},
		"nil stage":                {p: pipeline.New(pipeline.FIFO(passThrough), nil)},
		"negative buffer":          {p: pipeline.NewWithOptions(pipeline.Options{BufferSize: -7})},
		"FIFO nil":                 {p: pipeline.New(pipeline.FIFO(nil))},
		"FixedWorkerPool nil":      {p: pipeline.New(pipeline.FixedWorkerPool(nil, 2))},
		"FixedWorkerPool 0":        {p: pipeline.New(pipeline.FixedWorkerPool(passThrough, 0))},
		"DynamicWorkerPool nil":    {p: pipeline.New(pipeline.DynamicWorkerPool(nil, 2))},
		"DynamicWorkerPool -1":     {p: pipeline.New(pipeline.DynamicWorkerPool(passThrough, -1))},
		"OrderedWorkerPool nil":    {p: pipeline.New(pipeline.OrderedWorkerPool(nil, 2))},
		"OrderedWorkerPool 0":      {p: pipeline.New(pipeline.OrderedWorkerPool(passThrough, 0))},
		"Broadcast none":           {p: pipeline.New(pipeline.Broadcast())},
		"Broadcast nil":            {p: pipeline.New(pipeline.Broadcast(passThrough, nil))},
		"Batch nil":                {p: pipeline.New(pipeline.Batch(nil, 2, 0))},
		"Batch size 0":             {p: pipeline.New(pipeline.Batch(batchNoop, 0, 0))},
		"invalid stage after good": {p: pipeline.New(pipeline.FIFO(passThrough), pipeline.FIFO(nil))},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var l ledger
			var src pipeline.Source = &sliceSource{l: &l, n: 5}
			var sink pipeline.Sink = &collectSink{}
			if tc.noSrc {
				src = nil
			}
			if tc.noSink {
				sink = nil
			}
			err := tc.p.Process(context.Background(), src, sink)
			if !errors.Is(err, pipeline.ErrInvalidConfig) {
				t.Fatalf("Process = %v, want ErrInvalidConfig", err)
			}
			if n := l.created.Load(); n != 0 {
				t.Errorf("source read %d payloads despite the invalid configuration", n)
			}
		})
	}
}

func TestInvalidRunnerRunDirectlyReportsError(t *testing.T) {
	noop := pipeline.BatchProcessorFunc(func(context.Context, []pipeline.Payload) error { return nil })
	for _, r := range []pipeline.StageRunner{
		pipeline.FIFO(nil),
		pipeline.FixedWorkerPool(passThrough, 0),
		pipeline.DynamicWorkerPool(passThrough, 0),
		pipeline.OrderedWorkerPool(passThrough, 0),
		pipeline.Broadcast(),
		pipeline.Batch(noop, 0, 0),
	} {
		in := make(chan pipeline.Payload)
		close(in)
		errCh := make(chan error, 1)
		r.Run(context.Background(), &testParams{in: in, out: make(chan pipeline.Payload), errCh: errCh})
		if err := <-errCh; !errors.Is(err, pipeline.ErrInvalidConfig) {
			t.Errorf("%T: error = %v, want ErrInvalidConfig", r, err)
		}
	}
}

// TestRunnersRunDirectly runs each built-in runner outside a pipeline, with
// the caller's own channels, as a custom composition would.
func TestRunnersRunDirectly(t *testing.T) {
	for name, r := range runners(passThrough) {
		t.Run(name, func(t *testing.T) {
			var l ledger
			params := &testParams{in: make(chan pipeline.Payload, 10), out: make(chan pipeline.Payload, 100), errCh: make(chan error, 1)}
			for i := range 10 {
				params.in <- l.newPayload(i)
			}
			close(params.in)
			r.Run(context.Background(), params)
			close(params.out)
			n := 0
			for p := range params.out {
				p.MarkAsProcessed()
				n++
			}
			if want := map[bool]int{true: 20, false: 10}[name == "Broadcast"]; n != want {
				t.Errorf("%d payloads out, want %d", n, want)
			}
			l.check(t)
		})
	}
}

func TestErrorStrings(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&pipeline.Error{Component: pipeline.ComponentSource, Stage: -1, Err: errBoom}, "pipeline source: boom"},
		{&pipeline.Error{Component: pipeline.ComponentStage, Stage: 3, Err: errBoom}, "pipeline stage 3: boom"},
		{&pipeline.Error{Component: pipeline.ComponentSink, Stage: -1, Err: errBoom}, "pipeline sink: boom"},
		{&pipeline.PanicError{Value: 42}, "panic: 42"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	if got := pipeline.Component(9).String(); got != "Component(9)" {
		t.Errorf("String() = %q", got)
	}
}

type testParams struct {
	in    chan pipeline.Payload
	out   chan pipeline.Payload
	errCh chan error
}

func (p *testParams) StageIndex() int                 { return 0 }
func (p *testParams) Input() <-chan pipeline.Payload  { return p.in }
func (p *testParams) Output() chan<- pipeline.Payload { return p.out }
func (p *testParams) Error() chan<- error             { return p.errCh }

// TestErrorPaths checks, for every runner, that an error anywhere stops the
// run, comes back located and matchable, and that every payload is marked
// processed exactly once.
func TestErrorPaths(t *testing.T) {
	const n = 500
	failAt := func(id int) pipeline.Processor {
		return pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
			if p.(*testPayload).id == id {
				return nil, errBoom
			}
			return p, nil
		})
	}
	panicAt := func(id int) pipeline.Processor {
		return pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
			if p.(*testPayload).id == id {
				panic("kaboom")
			}
			return p, nil
		})
	}
	for name := range runners(passThrough) {
		t.Run(name, func(t *testing.T) {
			t.Run("processor error", func(t *testing.T) {
				var l ledger
				p := pipeline.New(pipeline.FIFO(passThrough), runners(failAt(137))[name], pipeline.FIFO(passThrough))
				err := within(t, 10*time.Second, func() error {
					return p.Process(context.Background(), &sliceSource{l: &l, n: n}, &collectSink{})
				})
				wantStageErr(t, err, 1, errBoom)
				l.check(t)
			})
			t.Run("processor panic", func(t *testing.T) {
				var l ledger
				p := pipeline.New(pipeline.FIFO(passThrough), pipeline.FIFO(passThrough), runners(panicAt(42))[name])
				err := within(t, 10*time.Second, func() error {
					return p.Process(context.Background(), &sliceSource{l: &l, n: n}, &collectSink{})
				})
				var pe *pipeline.PanicError
				if !errors.As(err, &pe) || pe.Value != "kaboom" || len(pe.Stack) == 0 {
					t.Fatalf("Process = %v, want a *PanicError with value and stack", err)
				}
				wantStageErr(t, err, 2, nil)
				l.check(t)
			})
			t.Run("source error", func(t *testing.T) {
				var l ledger
				p := pipeline.New(runners(passThrough)[name])
				err := within(t, 10*time.Second, func() error {
					return p.Process(context.Background(), &sliceSource{l: &l, n: n, err: errBoom}, &collectSink{})
				})
				var perr *pipeline.Error
				if !errors.Is(err, errBoom) || !errors.As(err, &perr) || perr.Component != pipeline.ComponentSource || perr.Stage != -1 {
					t.Fatalf("Process = %v, want errBoom located at the source", err)
				}
				l.check(t)
			})
			t.Run("sink error", func(t *testing.T) {
				var l ledger
				p := pipeline.New(runners(passThrough)[name], pipeline.FIFO(passThrough))
				var consumed atomic.Int64
				sink := &collectSink{consume: func(context.Context, *testPayload) error {
					if consumed.Add(1) == 50 {
						return errBoom
					}
					return nil
				}}
				err := within(t, 10*time.Second, func() error {
					return p.Process(context.Background(), &sliceSource{l: &l, n: n}, sink)
				})
				var perr *pipeline.Error
				if !errors.Is(err, errBoom) || !errors.As(err, &perr) || perr.Component != pipeline.ComponentSink {
					t.Fatalf("Process = %v, want errBoom located at the sink", err)
				}
				if got := len(sink.got()); got != 49 {
					t.Errorf("sink accepted %d payloads, want 49: nothing after its error", got)
				}
				l.check(t)
			})
			t.Run("cancel mid-run", func(t *testing.T) {
				var l ledger
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				p := pipeline.New(pipeline.FIFO(passThrough), runners(passThrough)[name], pipeline.FIFO(passThrough))
				var consumed atomic.Int64
				sink := &collectSink{consume: func(context.Context, *testPayload) error {
					if consumed.Add(1) == 100 {
						cancel()
					}
					return nil
				}}
				// An endless source: only cancellation ends this run.
				src := &sliceSource{l: &l, n: 1 << 62}
				err := within(t, 10*time.Second, func() error { return p.Process(ctx, src, sink) })
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("Process = %v, want context.Canceled", err)
				}
				l.check(t)
			})
		})
	}
}

// wantStageErr fails t unless err holds an *Error for stage wrapping cause
// (any cause if nil).
func wantStageErr(t *testing.T, err error, stage int, cause error) {
	t.Helper()
	var perr *pipeline.Error
	if !errors.As(err, &perr) {
		t.Fatalf("Process = %v, want a *pipeline.Error", err)
	}
	if perr.Component != pipeline.ComponentStage || perr.Stage != stage {
		t.Errorf("first error at %v %d, want stage %d: %v", perr.Component, perr.Stage, stage, err)
	}
	if cause != nil && !errors.Is(err, cause) {
		t.Errorf("Process = %v, want it to wrap %v", err, cause)
	}
}

func TestCanceledBeforeStart(t *testing.T) {
	var l ledger
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := pipeline.New(pipeline.FIFO(passThrough)).Process(ctx, &sliceSource{l: &l, n: 10}, &collectSink{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Process = %v, want context.Canceled", err)
	}
	l.check(t)
}

// TestEveryErrorIsKept makes four workers fail at the same moment: all four
// errors must come back, none dropped for lack of room.
func TestEveryErrorIsKept(t *testing.T) {
	const workers = 4
	var l ledger
	var arrived sync.WaitGroup
	arrived.Add(workers)
	proc := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		arrived.Done()
		arrived.Wait() // all workers fail together
		return nil, fmt.Errorf("payload %d: %w", p.(*testPayload).id, errBoom)
	})
	p := pipeline.New(pipeline.FixedWorkerPool(proc, workers))
	err := within(t, 10*time.Second, func() error {
		return p.Process(context.Background(), &sliceSource{l: &l, n: workers}, &collectSink{})
	})
	var merr *multierror.Error
	if !errors.As(err, &merr) || len(merr.Errors) != workers {
		t.Fatalf("Process = %v, want %d errors", err, workers)
	}
	for _, e := range merr.Errors {
		if !errors.Is(e, errBoom) {
			t.Errorf("error %v does not wrap errBoom", e)
		}
	}
	l.check(t)
}

// earlyExit is a faulty custom runner that returns at once.
type earlyExit struct{}

func (earlyExit) Run(context.Context, pipeline.StageParams) {}

func TestCustomRunnerReturningEarly(t *testing.T) {
	var l ledger
	p := pipeline.New(pipeline.FIFO(passThrough), earlyExit{})
	err := within(t, 10*time.Second, func() error {
		return p.Process(context.Background(), &sliceSource{l: &l, n: 100}, &collectSink{})
	})
	wantStageErr(t, err, 1, pipeline.ErrStageExitedEarly)
	l.check(t)
}

// panicRunner is a faulty custom runner that panics.
type panicRunner struct{}

func (panicRunner) Run(context.Context, pipeline.StageParams) { panic(errBoom) }

func TestCustomRunnerPanicking(t *testing.T) {
	var l ledger
	p := pipeline.New(panicRunner{}, pipeline.FIFO(passThrough))
	err := within(t, 10*time.Second, func() error {
		return p.Process(context.Background(), &sliceSource{l: &l, n: 100}, &collectSink{})
	})
	var pe *pipeline.PanicError
	if !errors.As(err, &pe) || !errors.Is(err, errBoom) {
		t.Fatalf("Process = %v, want a *PanicError wrapping errBoom", err)
	}
	wantStageErr(t, err, 0, errBoom)
	l.check(t)
}

// customFIFO is a well-behaved custom runner using only the public API.
type customFIFO struct{}

func (customFIFO) Run(ctx context.Context, params pipeline.StageParams) {
	for p := range params.Input() {
		select {
		case params.Output() <- p:
		case <-ctx.Done():
			p.MarkAsProcessed()
			return
		}
	}
}

func TestCustomRunner(t *testing.T) {
	var l ledger
	sink := &collectSink{}
	p := pipeline.New(customFIFO{}, pipeline.FIFO(passThrough))
	if err := p.Process(context.Background(), &sliceSource{l: &l, n: 50}, sink); err != nil {
		t.Fatalf("Process: %v", err)
	}
	if got := len(sink.got()); got != 50 {
		t.Errorf("sink got %d payloads, want 50", got)
	}
	l.check(t)
}

func TestSourcePanicAndNilPayload(t *testing.T) {
	t.Run("panic", func(t *testing.T) {
		var l ledger
		src := &sliceSource{l: &l, n: 10, next: func(_ context.Context, i int) bool {
			if i == 5 {
				panic("source bug")
			}
			return true
		}}
		err := pipeline.New(pipeline.FIFO(passThrough)).Process(context.Background(), src, &collectSink{})
		var pe *pipeline.PanicError
		var perr *pipeline.Error
		if !errors.As(err, &pe) || !errors.As(err, &perr) || perr.Component != pipeline.ComponentSource {
			t.Fatalf("Process = %v, want a *PanicError at the source", err)
		}
		l.check(t)
	})
	t.Run("nil payload", func(t *testing.T) {
		err := pipeline.New().Process(context.Background(), nilSource{}, &collectSink{})
		if !errors.Is(err, pipeline.ErrNilPayload) {
			t.Fatalf("Process = %v, want ErrNilPayload", err)
		}
	})
}

type nilSource struct{}

func (nilSource) Next(context.Context) bool { return true }
func (nilSource) Payload() pipeline.Payload { return nil }
func (nilSource) Error() error              { return nil }

func TestSinkPanic(t *testing.T) {
	var l ledger
	sink := &collectSink{consume: func(context.Context, *testPayload) error { panic("sink bug") }}
	err := pipeline.New(pipeline.FIFO(passThrough)).Process(context.Background(), &sliceSource{l: &l, n: 10}, sink)
	var pe *pipeline.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Process = %v, want a *PanicError", err)
	}
	l.check(t)
}

func TestUnbufferedAndLargeBuffers(t *testing.T) {
	for _, size := range []int{pipeline.Unbuffered, 1, 1000} {
		for name, r := range runners(passThrough) {
			t.Run(fmt.Sprintf("%s/buffer=%d", name, size), func(t *testing.T) {
				var l ledger
				sink := &collectSink{}
				p := pipeline.NewWithOptions(pipeline.Options{BufferSize: size}, r, pipeline.FIFO(passThrough))
				if err := p.Process(context.Background(), &sliceSource{l: &l, n: 200}, sink); err != nil {
					t.Fatalf("Process: %v", err)
				}
				want := 200
				if name == "Broadcast" {
					want = 400
				}
				if got := len(sink.got()); got != want {
					t.Errorf("sink got %d payloads, want %d", got, want)
				}
				l.check(t)
			})
		}
	}
}

func TestPipelineIsReusable(t *testing.T) {
	p := pipeline.New(pipeline.DynamicWorkerPool(passThrough, 2), pipeline.FIFO(passThrough))
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			var l ledger
			sink := &collectSink{}
			if err := p.Process(context.Background(), &sliceSource{l: &l, n: 100}, sink); err != nil {
				t.Errorf("Process: %v", err)
			}
			if got := len(sink.got()); got != 100 {
				t.Errorf("sink got %d payloads, want 100", got)
			}
			l.check(t)
		})
	}
	wg.Wait()
}

func TestStats(t *testing.T) {
	var l ledger
	release := make(chan struct{})
	var seen atomic.Int64
	dropOdd := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		if p.(*testPayload).id%2 == 1 {
			return nil, nil
		}
		return p, nil
	})
	gate := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		seen.Add(1)
		<-release
		return p, nil
	})
	p := pipeline.New(pipeline.FIFO(dropOdd), pipeline.FixedWorkerPool(gate, 2), pipeline.Broadcast(passThrough, passThrough))
	if st := p.Stats(); len(st.Stages) != 3 || st.Stages[1].In != 0 {
		t.Fatalf("Stats before any run = %+v, want three zeroed stages", st)
	}

	done := make(chan error, 1)
	go func() { done <- p.Process(context.Background(), &sliceSource{l: &l, n: 100}, &collectSink{}) }()

	// While both workers are held, the live counters show them in flight.
	deadline := time.Now().Add(10 * time.Second)
	for seen.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("workers never started")
		}
		time.Sleep(time.Millisecond)
	}
	if live := p.Stats().Stages[1]; live.InFlight != 2 || live.In != 2 {
		t.Errorf("live stage 1 = %+v, want In 2 and InFlight 2", live)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Process: %v", err)
	}

	st := p.Stats()
	want := []pipeline.StageStats{
		{Stage: 0, In: 100, Out: 50, Dropped: 50},
		{Stage: 1, In: 50, Out: 50},
		{Stage: 2, In: 100, Out: 100},
	}
	for i, w := range want {
		g := st.Stages[i]
		g.ProcessingTime = 0
		if g != w {
			t.Errorf("stage %d = %+v, want %+v", i, g, w)
		}
	}
	if st.Stages[1].ProcessingTime <= 0 {
		t.Errorf("stage 1 ProcessingTime = %v, want > 0", st.Stages[1].ProcessingTime)
	}
	if st.Emitted != 100 || st.Consumed != 100 || st.Abandoned != 0 || st.SinkFailed != 0 {
		t.Errorf("stats = %+v, want 100 emitted and consumed", st)
	}
	js, err := json.Marshal(st)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	var back pipeline.Stats
	if err := json.Unmarshal(js, &back); err != nil || back.Stages[2].Out != 100 {
		t.Errorf("JSON round trip = %+v, %v from %s", back, err, js)
	}
	l.check(t)
}

func TestStatsAfterFailure(t *testing.T) {
	var l ledger
	fail := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		if p.(*testPayload).id == 10 {
			return nil, errBoom
		}
		return p, nil
	})
	p := pipeline.New(pipeline.FIFO(fail))
	if err := p.Process(context.Background(), &sliceSource{l: &l, n: 1000}, &collectSink{}); !errors.Is(err, errBoom) {
		t.Fatalf("Process = %v, want errBoom", err)
	}
	st := p.Stats()
	s := st.Stages[0]
	if s.Failed != 1 || s.InFlight != 0 {
		t.Errorf("stage = %+v, want 1 failed, none in flight", s)
	}
	// Every payload the source emitted is accounted for somewhere.
	if total := st.Consumed + s.Failed + s.Dropped + s.Abandoned + st.Abandoned; total != st.Emitted {
		t.Errorf("accounted %d payloads, emitted %d: %+v", total, st.Emitted, st)
	}
	l.check(t)
}

// TestBlockedProcessorsAreReleased has workers that wait for the run to end;
// a source error must end it, and their own context errors are kept too.
func TestBlockedProcessorsAreReleased(t *testing.T) {
	var l ledger
	var waiting sync.WaitGroup
	waiting.Add(3)
	block := pipeline.ProcessorFunc(func(ctx context.Context, _ pipeline.Payload) (pipeline.Payload, error) {
		waiting.Done()
		<-ctx.Done()
		return nil, ctx.Err()
	})
	// Three payloads, one per worker, then the source fails once every
	// worker is blocked.
	src := &gatedErrSource{sliceSource: &sliceSource{l: &l, n: 3, err: errBoom}, gate: &waiting}
	p := pipeline.New(pipeline.FixedWorkerPool(block, 3), pipeline.FIFO(passThrough))
	err := within(t, 10*time.Second, func() error { return p.Process(context.Background(), src, &collectSink{}) })
	var merr *multierror.Error
	if !errors.As(err, &merr) || len(merr.Errors) != 4 {
		t.Fatalf("Process = %v, want the source error and three context errors", err)
	}
	var first *pipeline.Error
	if !errors.As(merr.Errors[0], &first) || first.Component != pipeline.ComponentSource || !errors.Is(first, errBoom) {
		t.Errorf("first error = %v, want errBoom from the source", merr.Errors[0])
	}
	for _, e := range merr.Errors[1:] {
		if !errors.Is(e, context.Canceled) {
			t.Errorf("error %v, want context.Canceled from a released worker", e)
		}
	}
	l.check(t)
}

// gatedErrSource reports its error only once gate is done.
type gatedErrSource struct {
	*sliceSource
	gate *sync.WaitGroup
}

func (s *gatedErrSource) Next(ctx context.Context) bool {
	if s.i == s.n {
		s.gate.Wait()
	}
	return s.sliceSource.Next(ctx)
}

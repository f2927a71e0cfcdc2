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

// Tests of the batched hand-offs between built-in components: payloads move
// in batches when a consumer lags, and never wait for a batch to fill.

// TestLonePayloadIsNotHeld emits each payload only once the sink has
// consumed the one before: a hand-off that waited for more payloads would
// hang the run.
func TestLonePayloadIsNotHeld(t *testing.T) {
	const n = 20
	var l ledger
	consumed := make(chan int, 2*n)
	src := &sliceSource{l: &l, n: n, next: func(ctx context.Context, i int) bool {
		if i == 0 {
			return true
		}
		select {
		case <-consumed: // the previous payload went all the way through
			return true
		case <-time.After(10 * time.Second):
			t.Errorf("payload %d held back in the pipeline", i-1)
			return false
		}
	}}
	sink := &collectSink{consume: func(_ context.Context, p *testPayload) error {
		consumed <- p.id
		return nil
	}}
	p := pipeline.New(referenceStages()...)
	if err := p.Process(context.Background(), src, sink); err != nil {
		t.Fatalf("Process: %v", err)
	}
	if got := len(sink.got()); got != 2*n {
		t.Errorf("sink got %d payloads, want %d", got, 2*n)
	}
	l.check(t)
}

// TestSlowProcessorDoesNotHoldFinishedPayloads has a stage that, on its
// second payload, waits for the sink to get its first: a stage that kept
// finished payloads back while working on the next would hang the run.
func TestSlowProcessorDoesNotHoldFinishedPayloads(t *testing.T) {
	var l ledger
	firstConsumed := make(chan struct{})
	gate := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		if p.(*testPayload).id == 1 {
			select {
			case <-firstConsumed:
			case <-time.After(10 * time.Second):
				return nil, errors.New("payload 0 held back while payload 1 was processed")
			}
		}
		return p, nil
	})
	sink := &collectSink{consume: func(_ context.Context, p *testPayload) error {
		if p.id == 0 {
			close(firstConsumed)
		}
		return nil
	}}
	p := pipeline.New(pipeline.FIFO(passThrough), pipeline.FIFO(gate), pipeline.FIFO(passThrough))
	if err := p.Process(context.Background(), &sliceSource{l: &l, n: 100}, sink); err != nil {
		t.Fatalf("Process: %v", err)
	}
	if got := sink.got(); !slices.Equal(got, ids(100)) {
		t.Errorf("sink got %d payloads, want 0..99 in order", len(got))
	}
	l.check(t)
}

// queuedSource emits payload 0, waits for started to be closed, emits the
// others, and closes queued when Next is called after the last, that is
// once the pipeline has taken all of them.
type queuedSource struct {
	*sliceSource
	started chan struct{}
	queued  chan struct{}
	once    sync.Once
}

func newQueuedSource(l *ledger, n int) *queuedSource {
	s := &queuedSource{sliceSource: &sliceSource{l: l, n: n}, started: make(chan struct{}), queued: make(chan struct{})}
	s.next = func(ctx context.Context, i int) bool {
		if i == 1 {
			<-s.started
		}
		return true
	}
	return s
}

func (s *queuedSource) Next(ctx context.Context) bool {
	if s.i == s.n {
		s.once.Do(func() { close(s.queued) })
	}
	return s.sliceSource.Next(ctx)
}

// batchRun runs n payloads (n at most DefaultBufferSize) through a FIFO
// stage that takes payload 0 alone and holds it until the source has
// queued every other payload, so that the stage then takes them as one
// batch; proc sees payloads 1 to n-1 of that batch. It returns the
// pipeline and Process's result.
func batchRun(t *testing.T, ctx context.Context, l *ledger, n int, proc func(p *pipeline.Pipeline, tp *testPayload) error, sink *collectSink) (*pipeline.Pipeline, error) {
	t.Helper()
	src := newQueuedSource(l, n)
	var p *pipeline.Pipeline
	stage := pipeline.ProcessorFunc(func(_ context.Context, q pipeline.Payload) (pipeline.Payload, error) {
		tp := q.(*testPayload)
		if tp.id == 0 {
			close(src.started) // the source has emitted nothing else yet
			<-src.queued
			return q, nil
		}
		return q, proc(p, tp)
	})
	p = pipeline.New(pipeline.FIFO(stage), pipeline.FIFO(passThrough))
	err := within(t, 10*time.Second, func() error { return p.Process(ctx, src, sink) })
	return p, err
}

// TestBatchesKeepOrder checks that the stage took the queued payloads in
// one batch (its In counter jumps from 1 to n) and that they leave in order.
func TestBatchesKeepOrder(t *testing.T) {
	const n = 20
	var l ledger
	var inAtSecond atomic.Uint64
	sink := &collectSink{}
	_, err := batchRun(t, context.Background(), &l, n, func(p *pipeline.Pipeline, tp *testPayload) error {
		if tp.id == 1 {
			inAtSecond.Store(p.Stats().Stages[0].In)
		}
		return nil
	}, sink)
	if err != nil {
		t.Fatalf("Process: %v", err)
	}
	if got := inAtSecond.Load(); got != n {
		t.Errorf("stage had taken %d payloads when processing the second, want all %d in one batch", got, n)
	}
	if got := sink.got(); !slices.Equal(got, ids(n)) {
		t.Errorf("sink got %v, want 0..%d in order", got, n-1)
	}
	l.check(t)
}

// TestCancelMidBatch cancels the run while the stage holds the rest of a
// batch: those payloads are abandoned, each marked processed once.
func TestCancelMidBatch(t *testing.T) {
	const n = 20
	var l ledger
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := batchRun(t, ctx, &l, n, func(_ *pipeline.Pipeline, tp *testPayload) error {
		if tp.id == 5 {
			cancel()
		}
		return nil
	}, &collectSink{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Process = %v, want context.Canceled", err)
	}
	st := p.Stats().Stages[0]
	if st.In != n || st.Abandoned == 0 || st.InFlight != 0 {
		t.Errorf("stage 0 = %+v, want all %d in, some abandoned, none in flight", st, n)
	}
	l.check(t)
}

// TestErrorMidBatch fails a payload in the middle of a batch: the error is
// returned, and the rest of the batch is marked processed once.
func TestErrorMidBatch(t *testing.T) {
	const n = 20
	var l ledger
	p, err := batchRun(t, context.Background(), &l, n, func(_ *pipeline.Pipeline, tp *testPayload) error {
		if tp.id == 5 {
			return errBoom
		}
		return nil
	}, &collectSink{})
	wantStageErr(t, err, 0, errBoom)
	st := p.Stats().Stages[0]
	if st.Failed != 1 || st.Abandoned != n-6 || st.InFlight != 0 {
		t.Errorf("stage 0 = %+v, want 1 failed, %d abandoned, none in flight", st, n-6)
	}
	l.check(t)
}

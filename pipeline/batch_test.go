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

// batchRecorder records the sizes of the batches it is given.
type batchRecorder struct {
	mu    sync.Mutex
	sizes []int
	then  func(batch []pipeline.Payload) error
}

func (r *batchRecorder) ProcessBatch(_ context.Context, batch []pipeline.Payload) error {
	r.mu.Lock()
	r.sizes = append(r.sizes, len(batch))
	r.mu.Unlock()
	if r.then != nil {
		return r.then(batch)
	}
	return nil
}

func TestBatchFlushesOnSize(t *testing.T) {
	var l ledger
	rec := &batchRecorder{}
	sink := &collectSink{}
	p := pipeline.New(pipeline.Batch(rec, 10, time.Hour))
	if err := p.Process(context.Background(), &sliceSource{l: &l, n: 95}, sink); err != nil {
		t.Fatalf("Process: %v", err)
	}
	want := []int{10, 10, 10, 10, 10, 10, 10, 10, 10, 5} // the rest when the input closes
	if !slices.Equal(rec.sizes, want) {
		t.Errorf("batch sizes = %v, want %v", rec.sizes, want)
	}
	if got := sink.got(); !slices.Equal(got, ids(95)) {
		t.Errorf("sink got %v, want 0..94 in order", got)
	}
	l.check(t)
}

func TestBatchFlushesOnTime(t *testing.T) {
	var l ledger
	rec := &batchRecorder{}
	flushed := make(chan struct{}, 10)
	rec.then = func([]pipeline.Payload) error { flushed <- struct{}{}; return nil }
	// The source emits 3 payloads, then waits until a batch was flushed:
	// only the delay can flush it.
	src := &sliceSource{l: &l, n: 6, next: func(ctx context.Context, i int) bool {
		if i == 3 {
			select {
			case <-flushed:
			case <-time.After(10 * time.Second):
				t.Error("no flush after the delay")
			}
		}
		return true
	}}
	p := pipeline.New(pipeline.Batch(rec, 100, 20*time.Millisecond))
	if err := p.Process(context.Background(), src, &collectSink{}); err != nil {
		t.Fatalf("Process: %v", err)
	}
	if len(rec.sizes) < 2 || rec.sizes[0] != 3 {
		t.Errorf("batch sizes = %v, want a first batch of 3 flushed by the delay", rec.sizes)
	}
	l.check(t)
}

func TestBatchGreedyWithoutDelay(t *testing.T) {
	var l ledger
	rec := &batchRecorder{}
	// One payload at a time, each waiting for the previous batch: a batcher
	// that never waits flushes each alone.
	step := make(chan struct{}, 1)
	step <- struct{}{}
	rec.then = func([]pipeline.Payload) error { step <- struct{}{}; return nil }
	src := &sliceSource{l: &l, n: 5, next: func(context.Context, int) bool { <-step; return true }}
	if err := pipeline.New(pipeline.Batch(rec, 100, 0)).Process(context.Background(), src, &collectSink{}); err != nil {
		t.Fatalf("Process: %v", err)
	}
	if !slices.Equal(rec.sizes, []int{1, 1, 1, 1, 1}) {
		t.Errorf("batch sizes = %v, want five batches of one", rec.sizes)
	}
	l.check(t)
}

func TestBatchDropsAndReplaces(t *testing.T) {
	var l ledger
	sink := &collectSink{}
	rec := &batchRecorder{then: func(batch []pipeline.Payload) error {
		for i, p := range batch {
			tp := p.(*testPayload)
			switch {
			case tp.id%4 == 0:
				batch[i] = nil // dropped: the pipeline marks it
			case tp.id%4 == 1:
				r := tp.l.newPayload(tp.id) // replaced: the processor releases the original
				r.value = "new"
				tp.MarkAsProcessed()
				batch[i] = r
			}
		}
		return nil
	}}
	p := pipeline.New(pipeline.Batch(rec, 8, time.Millisecond))
	if err := p.Process(context.Background(), &sliceSource{l: &l, n: 40}, sink); err != nil {
		t.Fatalf("Process: %v", err)
	}
	var want []int
	for i := range 40 {
		if i%4 != 0 {
			want = append(want, i)
		}
	}
	if got := sink.got(); !slices.Equal(got, want) {
		t.Errorf("sink got %v, want %v", got, want)
	}
	st := p.Stats().Stages[0]
	if st.In != 40 || st.Out != 30 || st.Dropped != 10 {
		t.Errorf("stats = %+v, want 40 in, 30 out, 10 dropped", st)
	}
	l.check(t)
}

func TestBatchError(t *testing.T) {
	var l ledger
	calls := 0
	rec := &batchRecorder{then: func([]pipeline.Payload) error {
		calls++
		if calls == 3 {
			return errBoom
		}
		return nil
	}}
	p := pipeline.New(pipeline.FIFO(passThrough), pipeline.Batch(rec, 5, time.Millisecond))
	err := p.Process(context.Background(), &sliceSource{l: &l, n: 100}, &collectSink{})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Process = %v, want errBoom", err)
	}
	wantStageErr(t, err, 1, errBoom)
	l.check(t)
}

// TestBatchPoolOverlapsBatches checks that a second batch is processed
// while the first is still in the processor: each batch waits until the
// other worker has one too, which deadlocks unless two run at once.
func TestBatchPoolOverlapsBatches(t *testing.T) {
	var l ledger
	var (
		mu      sync.Mutex
		busy    int
		maxBusy int
		both    = make(chan struct{})
		once    sync.Once
	)
	rec := &batchRecorder{then: func([]pipeline.Payload) error {
		mu.Lock()
		busy++
		if busy > maxBusy {
			maxBusy = busy
		}
		if busy == 2 {
			once.Do(func() { close(both) })
		}
		mu.Unlock()
		select {
		case <-both:
		case <-time.After(10 * time.Second):
			return errors.New("the other worker never took a batch")
		}
		mu.Lock()
		busy--
		mu.Unlock()
		return nil
	}}
	sink := &collectSink{}
	p := pipeline.New(pipeline.BatchPool(rec, 4, 0, 2))
	if err := p.Process(context.Background(), &sliceSource{l: &l, n: 50}, sink); err != nil {
		t.Fatalf("Process: %v", err)
	}
	if maxBusy != 2 {
		t.Errorf("at most %d batches at once, want 2", maxBusy)
	}
	got := sink.got()
	slices.Sort(got)
	if !slices.Equal(got, ids(50)) {
		t.Errorf("sink got %v, want every id 0..49 once", got)
	}
	for _, n := range rec.sizes {
		if n < 1 || n > 4 {
			t.Errorf("batch of %d, want 1..4", n)
		}
	}
	if st := p.Stats().Stages[0]; st.In != 50 || st.Out != 50 {
		t.Errorf("stats = %+v, want 50 in, 50 out", st)
	}
	l.check(t)
}

// TestBatchPoolError checks that an error in one worker ends the stage:
// the other workers stop and every payload is accounted for.
func TestBatchPoolError(t *testing.T) {
	var l ledger
	var calls atomic.Int64
	rec := &batchRecorder{then: func([]pipeline.Payload) error {
		if calls.Add(1) == 5 {
			return errBoom
		}
		return nil
	}}
	p := pipeline.New(pipeline.FIFO(passThrough), pipeline.BatchPool(rec, 3, 0, 3))
	err := p.Process(context.Background(), &sliceSource{l: &l, n: 1000}, &collectSink{})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Process = %v, want errBoom", err)
	}
	wantStageErr(t, err, 1, errBoom)
	l.check(t)
}

func TestBatchPoolCancel(t *testing.T) {
	var l ledger
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &batchRecorder{then: func([]pipeline.Payload) error {
		cancel()
		return nil
	}}
	src := &sliceSource{l: &l, n: 1 << 30}
	err := pipeline.New(pipeline.BatchPool(rec, 8, time.Millisecond, 4)).Process(ctx, src, &collectSink{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Process = %v, want context.Canceled", err)
	}
	l.check(t)
}

func TestBatchPoolInvalid(t *testing.T) {
	var l ledger
	for _, r := range []pipeline.StageRunner{
		pipeline.BatchPool(&batchRecorder{}, 1, 0, 0),
		pipeline.BatchPool(&batchRecorder{}, 0, 0, 2),
		pipeline.BatchPool(nil, 1, 0, 2),
	} {
		err := pipeline.New(r).Process(context.Background(), &sliceSource{l: &l, n: 3}, &collectSink{})
		if !errors.Is(err, pipeline.ErrInvalidConfig) {
			t.Errorf("Process = %v, want ErrInvalidConfig", err)
		}
	}
	l.check(t)
}

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

// TestBatchFlushesOnPause: a batch that would wait an hour for more is
// flushed once its input pauses.
func TestBatchFlushesOnPause(t *testing.T) {
	for name, stage := range map[string]func(pipeline.BatchProcessor) pipeline.StageRunner{
		"Batch": func(p pipeline.BatchProcessor) pipeline.StageRunner {
			return pipeline.Batch(p, 100, time.Hour, pipeline.FlushOnPause(5*time.Millisecond))
		},
		"BatchPool": func(p pipeline.BatchProcessor) pipeline.StageRunner {
			return pipeline.BatchPool(p, 100, time.Hour, 2, pipeline.FlushOnPause(5*time.Millisecond))
		},
		"ScatterGather": func(p pipeline.BatchProcessor) pipeline.StageRunner {
			return pipeline.ScatterGather([]pipeline.BatchProcessor{p}, 100, time.Hour, 1, pipeline.FlushOnPause(5*time.Millisecond))
		},
	} {
		t.Run(name, func(t *testing.T) {
			var l ledger
			rec := &batchRecorder{}
			flushed := make(chan struct{}, 10)
			rec.then = func([]pipeline.Payload) error { flushed <- struct{}{}; return nil }
			// Three payloads, then nothing until a batch is flushed: only
			// the pause can flush it.
			src := &sliceSource{l: &l, n: 4, next: func(ctx context.Context, i int) bool {
				if i == 3 {
					select {
					case <-flushed:
					case <-time.After(10 * time.Second):
						t.Error("no flush after the input paused")
					}
				}
				return true
			}}
			if err := pipeline.New(stage(rec)).Process(context.Background(), src, &collectSink{}); err != nil {
				t.Fatalf("Process: %v", err)
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if sum := sumInts(rec.sizes); sum != 4 || len(rec.sizes) < 2 {
				t.Errorf("batch sizes = %v, want the first 3 flushed by the pause, then the last", rec.sizes)
			}
			l.check(t)
		})
	}
}

// TestBatchLingersWhileArriving: payloads that keep coming, each well
// within the pause, fill batches to their size.
func TestBatchLingersWhileArriving(t *testing.T) {
	var l ledger
	rec := &batchRecorder{}
	src := &sliceSource{l: &l, n: 20, next: func(ctx context.Context, i int) bool {
		time.Sleep(time.Millisecond)
		return true
	}}
	// The pause is far longer than the 1 ms between payloads, even on a
	// loaded machine; without FlushOnPause's lingering, a batcher that
	// never waits would flush each payload as it came.
	stage := pipeline.Batch(rec, 10, time.Hour, pipeline.FlushOnPause(500*time.Millisecond))
	if err := pipeline.New(stage).Process(context.Background(), src, &collectSink{}); err != nil {
		t.Fatalf("Process: %v", err)
	}
	if !slices.Equal(rec.sizes, []int{10, 10}) {
		t.Errorf("batch sizes = %v, want [10 10]", rec.sizes)
	}
	l.check(t)
}

// TestBatchPauseKeepsMaxDelay: a stream that never pauses still has its
// batches flushed after maxDelay.
func TestBatchPauseKeepsMaxDelay(t *testing.T) {
	var l ledger
	rec := &batchRecorder{}
	src := &sliceSource{l: &l, n: 100, next: func(ctx context.Context, i int) bool {
		time.Sleep(2 * time.Millisecond)
		return true
	}}
	// 100 payloads take at least 200 ms: more than one 20 ms delay.
	stage := pipeline.Batch(rec, 1000, 20*time.Millisecond, pipeline.FlushOnPause(10*time.Second))
	if err := pipeline.New(stage).Process(context.Background(), src, &collectSink{}); err != nil {
		t.Fatalf("Process: %v", err)
	}
	if len(rec.sizes) < 2 || sumInts(rec.sizes) != 100 {
		t.Errorf("batch sizes = %v, want several batches of 100 payloads in all", rec.sizes)
	}
	l.check(t)
}

// TestBatchFlushesOnSignal: a batch that would wait an hour, on an input
// that never pauses long, goes when asked, in each batching runner.
func TestBatchFlushesOnSignal(t *testing.T) {
	for name, stage := range map[string]func(pipeline.BatchProcessor, <-chan struct{}) pipeline.StageRunner{
		"Batch": func(p pipeline.BatchProcessor, sig <-chan struct{}) pipeline.StageRunner {
			return pipeline.Batch(p, 1000, time.Hour, pipeline.FlushOnPause(time.Hour), pipeline.FlushOnSignal(sig))
		},
		"BatchPool": func(p pipeline.BatchProcessor, sig <-chan struct{}) pipeline.StageRunner {
			return pipeline.BatchPool(p, 1000, time.Hour, 2, pipeline.FlushOnSignal(sig))
		},
		"ScatterGather": func(p pipeline.BatchProcessor, sig <-chan struct{}) pipeline.StageRunner {
			return pipeline.ScatterGather([]pipeline.BatchProcessor{p}, 1000, time.Hour, 1, pipeline.FlushOnSignal(sig))
		},
	} {
		t.Run(name, func(t *testing.T) {
			var l ledger
			rec := &batchRecorder{}
			flushed := make(chan struct{}, 10)
			rec.then = func([]pipeline.Payload) error { flushed <- struct{}{}; return nil }
			sig := make(chan struct{}, 2)
			// Payload 10 is not sent before a batch was flushed, and
			// only the signal can flush one: the input keeps coming
			// until then (a payload every 100 µs).
			src := &sliceSource{l: &l, n: 20, next: func(ctx context.Context, i int) bool {
				switch {
				case i < 10:
					time.Sleep(100 * time.Microsecond)
				case i == 10:
					sig <- struct{}{}
					sig <- struct{}{}
					select {
					case <-flushed:
					case <-time.After(10 * time.Second):
						t.Error("no flush after the signal")
					}
				}
				return true
			}}
			if err := pipeline.New(stage(rec, sig)).Process(context.Background(), src, &collectSink{}); err != nil {
				t.Fatalf("Process: %v", err)
			}
			if len(rec.sizes) < 2 || sumInts(rec.sizes) != 20 {
				t.Errorf("batch sizes = %v, want a batch flushed by the signal before the input closed", rec.sizes)
			}
			l.check(t)
		})
	}
}

// TestBatchFlushesAtWeight: heavy payloads fill a batch before its size.
func TestBatchFlushesAtWeight(t *testing.T) {
	var l ledger
	rec := &batchRecorder{}
	// Payloads 0..9 weigh 1, 2, ..., 10: batches close at a weight of 10.
	weight := func(p pipeline.Payload) int64 { return int64(p.(*testPayload).id + 1) }
	stage := pipeline.Batch(rec, 100, time.Hour, pipeline.FlushAtWeight(10, weight))
	sink := &collectSink{}
	if err := pipeline.New(stage).Process(context.Background(), &sliceSource{l: &l, n: 10}, sink); err != nil {
		t.Fatalf("Process: %v", err)
	}
	// 1+2+3+4 = 10; 5+6 = 11; 7+8 = 15; 9+10 = 19.
	if want := []int{4, 2, 2, 2}; !slices.Equal(rec.sizes, want) {
		t.Errorf("batch sizes = %v, want %v", rec.sizes, want)
	}
	if got := sink.got(); !slices.Equal(got, ids(10)) {
		t.Errorf("sink got %v, want 0..9 in order", got)
	}
	l.check(t)
}

func sumInts(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
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
		pipeline.BatchPool(&batchRecorder{}, 1, time.Second, 2, pipeline.FlushOnPause(-time.Millisecond)),
		pipeline.Batch(&batchRecorder{}, 1, 0, pipeline.FlushAtWeight(0, func(pipeline.Payload) int64 { return 1 })),
		pipeline.ScatterGather([]pipeline.BatchProcessor{&batchRecorder{}}, 1, 0, 1, pipeline.FlushAtWeight(10, nil)),
		pipeline.Batch(&batchRecorder{}, 1, time.Second, pipeline.FlushOnSignal(nil)),
	} {
		err := pipeline.New(r).Process(context.Background(), &sliceSource{l: &l, n: 3}, &collectSink{})
		if !errors.Is(err, pipeline.ErrInvalidConfig) {
			t.Errorf("Process = %v, want ErrInvalidConfig", err)
		}
	}
	l.check(t)
}

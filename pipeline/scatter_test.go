package pipeline_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linksrus/linksrus/internal/ctxtime"
	"github.com/linksrus/linksrus/pipeline"
)

// seenBy records which payload ids a processor saw, and when.
type seenBy struct {
	mu   sync.Mutex
	ids  []int
	then func(batch []pipeline.Payload) error
}

func (s *seenBy) ProcessBatch(_ context.Context, batch []pipeline.Payload) error {
	s.mu.Lock()
	for _, p := range batch {
		s.ids = append(s.ids, p.(*testPayload).id)
	}
	s.mu.Unlock()
	if s.then != nil {
		return s.then(batch)
	}
	return nil
}

func (s *seenBy) got() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.ids)
	slices.Sort(out)
	return out
}

// TestScatterGatherJoins checks that every processor sees every payload,
// side by side, and that a payload reaches the next stage only once all
// processors are done with it.
func TestScatterGatherJoins(t *testing.T) {
	var l ledger
	// Each processor's first call waits for the other's: that can only
	// end if the two run at the same time.
	enteredA, enteredB := make(chan struct{}), make(chan struct{})
	var onceA, onceB sync.Once
	var overlapped atomic.Int64
	var done sync.Map // id -> processors done with it
	mark := func(batch []pipeline.Payload) {
		for _, p := range batch {
			n, _ := done.LoadOrStore(p.(*testPayload).id, new(atomic.Int64))
			n.(*atomic.Int64).Add(1)
		}
	}
	meet := func(once *sync.Once, mine, other chan struct{}) {
		first := false
		once.Do(func() { close(mine); first = true })
		if !first {
			return
		}
		select {
		case <-other:
			overlapped.Add(1)
		case <-time.After(10 * time.Second):
		}
	}
	a := &seenBy{then: func(batch []pipeline.Payload) error {
		meet(&onceA, enteredA, enteredB)
		mark(batch)
		return nil
	}}
	b := &seenBy{then: func(batch []pipeline.Payload) error {
		meet(&onceB, enteredB, enteredA)
		mark(batch)
		return nil
	}}
	after := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		n, ok := done.Load(p.(*testPayload).id)
		if !ok || n.(*atomic.Int64).Load() != 2 {
			return nil, errors.New("a payload went on before both processors had it")
		}
		return p, nil
	})
	sink := &collectSink{}
	p := pipeline.New(pipeline.ScatterGather([]pipeline.BatchProcessor{a, b}, 8, 0, 2), pipeline.FIFO(after))
	if err := p.Process(context.Background(), &sliceSource{l: &l, n: 100}, sink); err != nil {
		t.Fatalf("Process: %v", err)
	}
	if !slices.Equal(a.got(), ids(100)) || !slices.Equal(b.got(), ids(100)) {
		t.Errorf("a saw %v, b saw %v: want every id once each", a.got(), b.got())
	}
	got := sink.got()
	slices.Sort(got)
	if !slices.Equal(got, ids(100)) {
		t.Errorf("sink got %v, want every id once", got)
	}
	if overlapped.Load() != 2 {
		t.Error("the processors did not run at the same time")
	}
	if st := p.Stats().Stages[0]; st.In != 100 || st.Out != 100 {
		t.Errorf("stats = %+v, want 100 in and out (a payload counts once)", st)
	}
	l.check(t)
}

// TestScatterGatherDrops: a payload dropped by any processor does not go
// on, and is marked processed once.
func TestScatterGatherDrops(t *testing.T) {
	var l ledger
	dropEven := &seenBy{then: func(batch []pipeline.Payload) error {
		for i, p := range batch {
			if p.(*testPayload).id%2 == 0 {
				batch[i] = nil
			}
		}
		return nil
	}}
	dropThrees := &seenBy{then: func(batch []pipeline.Payload) error {
		for i, p := range batch {
			if p.(*testPayload).id%3 == 0 {
				batch[i] = nil
			}
		}
		return nil
	}}
	sink := &collectSink{}
	p := pipeline.New(pipeline.ScatterGather([]pipeline.BatchProcessor{dropEven, dropThrees}, 5, 0, 1))
	if err := p.Process(context.Background(), &sliceSource{l: &l, n: 30}, sink); err != nil {
		t.Fatal(err)
	}
	var want []int
	for i := range 30 {
		if i%2 != 0 && i%3 != 0 {
			want = append(want, i)
		}
	}
	if got := sink.got(); !slices.Equal(got, want) {
		t.Errorf("sink got %v, want %v (in order: one worker)", got, want)
	}
	if st := p.Stats().Stages[0]; st.Dropped != uint64(30-len(want)) {
		t.Errorf("stats = %+v, want %d dropped", st, 30-len(want))
	}
	l.check(t)
}

// TestScatterGatherErrors: an error or a panic in any processor ends the
// run with it, the other processors' work on the batch is canceled, and
// every payload is accounted for.
func TestScatterGatherErrors(t *testing.T) {
	for name, failing := range map[string]func(batch []pipeline.Payload) error{
		"error": func([]pipeline.Payload) error { return errBoom },
		"panic": func([]pipeline.Payload) error { panic("boom") },
	} {
		t.Run(name, func(t *testing.T) {
			var l ledger
			var calls atomic.Int64
			bad := &seenBy{then: func(batch []pipeline.Payload) error {
				if calls.Add(1) == 3 {
					return failing(batch)
				}
				return nil
			}}
			var canceled atomic.Bool
			slow := pipeline.BatchProcessorFunc(func(ctx context.Context, _ []pipeline.Payload) error {
				if err := ctxtime.Sleep(ctx, 20*time.Millisecond); err != nil {
					canceled.Store(true)
					return err
				}
				return nil
			})
			p := pipeline.New(pipeline.ScatterGather([]pipeline.BatchProcessor{slow, bad}, 4, time.Millisecond, 1))
			err := p.Process(context.Background(), &sliceSource{l: &l, n: 1000}, &collectSink{})
			if err == nil {
				t.Fatal("Process succeeded")
			}
			if name == "error" && !errors.Is(err, errBoom) {
				t.Errorf("Process = %v, want errBoom", err)
			}
			var pe *pipeline.PanicError
			if name == "panic" && !errors.As(err, &pe) {
				t.Errorf("Process = %v, want a PanicError", err)
			}
			if !canceled.Load() {
				t.Error("the other processor's work was not canceled")
			}
			l.check(t)
		})
	}
}

// TestScatterGatherReplaceIsAnError: a processor may not hand back another
// payload; the replacement is released with the rest.
func TestScatterGatherReplaceIsAnError(t *testing.T) {
	var l ledger
	swap := swapFirst(&l)
	p := pipeline.New(pipeline.ScatterGather([]pipeline.BatchProcessor{&seenBy{}, swap}, 4, 0, 1))
	err := p.Process(context.Background(), &sliceSource{l: &l, n: 10}, &collectSink{})
	if !errors.Is(err, pipeline.ErrScatterReplaced) {
		t.Fatalf("Process = %v, want ErrScatterReplaced", err)
	}
	l.check(t)
}

func TestScatterGatherInvalid(t *testing.T) {
	var l ledger
	for _, r := range []pipeline.StageRunner{
		pipeline.ScatterGather(nil, 1, 0, 1),
		pipeline.ScatterGather([]pipeline.BatchProcessor{&seenBy{}, nil}, 1, 0, 1),
		pipeline.ScatterGather([]pipeline.BatchProcessor{&seenBy{}}, 0, 0, 1),
		pipeline.ScatterGather([]pipeline.BatchProcessor{&seenBy{}}, 1, 0, 0),
	} {
		err := pipeline.New(r).Process(context.Background(), &sliceSource{l: &l, n: 3}, &collectSink{})
		if !errors.Is(err, pipeline.ErrInvalidConfig) {
			t.Errorf("Process = %v, want ErrInvalidConfig", err)
		}
	}
	l.check(t)
}

// TestScatterGatherReplaceAndFail: a replacement is released when another
// processor fails the batch, as when the replacement itself fails it.
func TestScatterGatherReplaceAndFail(t *testing.T) {
	var l ledger
	swap := swapFirst(&l)
	fail := pipeline.BatchProcessorFunc(func(context.Context, []pipeline.Payload) error { return errBoom })
	p := pipeline.New(pipeline.ScatterGather([]pipeline.BatchProcessor{fail, swap}, 4, 0, 1))
	if err := p.Process(context.Background(), &sliceSource{l: &l, n: 10}, &collectSink{}); !errors.Is(err, errBoom) {
		t.Fatalf("Process = %v, want errBoom", err)
	}
	l.check(t)
}

// TestScatterGatherOneProcessorReplaceIsAnError: the rule holds with a
// single processor too.
func TestScatterGatherOneProcessorReplaceIsAnError(t *testing.T) {
	var l ledger
	swap := swapFirst(&l)
	p := pipeline.New(pipeline.ScatterGather([]pipeline.BatchProcessor{swap}, 4, 0, 1))
	if err := p.Process(context.Background(), &sliceSource{l: &l, n: 10}, &collectSink{}); !errors.Is(err, pipeline.ErrScatterReplaced) {
		t.Fatalf("Process = %v, want ErrScatterReplaced", err)
	}
	l.check(t)
}

// swapFirst is a processor that puts a new payload in place of the first
// of each batch, which ScatterGather forbids.
func swapFirst(l *ledger) pipeline.BatchProcessor {
	return pipeline.BatchProcessorFunc(func(_ context.Context, batch []pipeline.Payload) error {
		batch[0] = l.newPayload(-1)
		return nil
	})
}

package pipeline_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linksrus/linksrus/pipeline"
)

func ids(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// jitter sleeps a little, differently per payload, to shuffle parallel work.
func jitter(p pipeline.Payload) {
	time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
	_ = p
}

func TestFIFOKeepsOrderAndDrops(t *testing.T) {
	var l ledger
	sink := &collectSink{}
	dropMult3 := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		if p.(*testPayload).id%3 == 0 {
			return nil, nil
		}
		return p, nil
	})
	p := pipeline.New(pipeline.FIFO(dropMult3), pipeline.FIFO(passThrough))
	if err := p.Process(context.Background(), &sliceSource{l: &l, n: 1000}, sink); err != nil {
		t.Fatalf("Process: %v", err)
	}
	var want []int
	for i := range 1000 {
		if i%3 != 0 {
			want = append(want, i)
		}
	}
	if got := sink.got(); !slices.Equal(got, want) {
		t.Errorf("FIFO output out of order or incomplete: got %d payloads", len(got))
	}
	l.check(t)
}

// TestPoolsProcessEverything checks the unordered pools deliver each payload
// exactly once and really work in parallel.
func TestPoolsProcessEverything(t *testing.T) {
	const n, workers = 300, 4
	for name, mk := range map[string]func(pipeline.Processor) pipeline.StageRunner{
		"FixedWorkerPool":   func(p pipeline.Processor) pipeline.StageRunner { return pipeline.FixedWorkerPool(p, workers) },
		"DynamicWorkerPool": func(p pipeline.Processor) pipeline.StageRunner { return pipeline.DynamicWorkerPool(p, workers) },
	} {
		t.Run(name, func(t *testing.T) {
			var l ledger
			var cur, peak atomic.Int64
			proc := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
				c := cur.Add(1)
				for old := peak.Load(); c > old && !peak.CompareAndSwap(old, c); old = peak.Load() {
				}
				jitter(p)
				cur.Add(-1)
				return p, nil
			})
			sink := &collectSink{}
			if err := pipeline.New(mk(proc)).Process(context.Background(), &sliceSource{l: &l, n: n}, sink); err != nil {
				t.Fatalf("Process: %v", err)
			}
			got := sink.got()
			slices.Sort(got)
			if !slices.Equal(got, ids(n)) {
				t.Errorf("pool delivered %d payloads, want each of %d exactly once", len(got), n)
			}
			if p := peak.Load(); p < 2 || p > workers {
				t.Errorf("peak concurrency %d, want between 2 and %d", p, workers)
			}
			l.check(t)
		})
	}
}

// TestDynamicWorkerPoolBound measures the concurrency of a dynamic pool under
// load: it must reach its bound and never exceed it.
func TestDynamicWorkerPoolBound(t *testing.T) {
	for _, bound := range []int{1, 3, 8} {
		var l ledger
		var cur, peak, over atomic.Int64
		proc := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
			c := cur.Add(1)
			if c > int64(bound) {
				over.Add(1)
			}
			for old := peak.Load(); c > old && !peak.CompareAndSwap(old, c); old = peak.Load() {
			}
			time.Sleep(200 * time.Microsecond)
			cur.Add(-1)
			return p, nil
		})
		if err := pipeline.New(pipeline.DynamicWorkerPool(proc, bound)).Process(context.Background(), &sliceSource{l: &l, n: 400}, &collectSink{}); err != nil {
			t.Fatalf("Process: %v", err)
		}
		if over.Load() != 0 || peak.Load() != int64(bound) {
			t.Errorf("bound %d: peak concurrency %d, %d calls above the bound", bound, peak.Load(), over.Load())
		}
		l.check(t)
	}
}

func TestOrderedWorkerPoolKeepsOrder(t *testing.T) {
	var l ledger
	var cur, peak atomic.Int64
	proc := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		c := cur.Add(1)
		for old := peak.Load(); c > old && !peak.CompareAndSwap(old, c); old = peak.Load() {
		}
		jitter(p)
		cur.Add(-1)
		if p.(*testPayload).id%5 == 0 {
			return nil, nil // drops must not disturb the order of the rest
		}
		return p, nil
	})
	sink := &collectSink{}
	p := pipeline.NewWithOptions(pipeline.Options{BufferSize: 4}, pipeline.OrderedWorkerPool(proc, 4))
	if err := p.Process(context.Background(), &sliceSource{l: &l, n: 500}, sink); err != nil {
		t.Fatalf("Process: %v", err)
	}
	var want []int
	for i := range 500 {
		if i%5 != 0 {
			want = append(want, i)
		}
	}
	if got := sink.got(); !slices.Equal(got, want) {
		t.Errorf("ordered pool output out of order: %v", got)
	}
	if peak.Load() < 2 {
		t.Errorf("peak concurrency %d, want parallel processing", peak.Load())
	}
	l.check(t)
}

func TestBroadcastCopiesAreIndependent(t *testing.T) {
	var l ledger
	var firstGotOriginal atomic.Bool
	firstGotOriginal.Store(true)
	src := &sliceSource{l: &l, n: 200}
	var mu sync.Mutex
	emitted := map[int]pipeline.Payload{}
	src.next = func(context.Context, int) bool { return true }
	tag := func(name string, original bool) pipeline.Processor {
		return pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
			tp := p.(*testPayload)
			if original {
				mu.Lock()
				if emitted[tp.id] != p {
					firstGotOriginal.Store(false)
				}
				mu.Unlock()
			}
			jitter(p)
			tp.value += name // a data race here if copies were shared
			return p, nil
		})
	}
	// Record what the source emits, to check the first branch gets it.
	record := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		mu.Lock()
		emitted[p.(*testPayload).id] = p
		mu.Unlock()
		return p, nil
	})
	sink := &collectSink{}
	p := pipeline.New(pipeline.FIFO(record), pipeline.Broadcast(tag("a", true), tag("b", false), tag("c", false)))
	if err := p.Process(context.Background(), src, sink); err != nil {
		t.Fatalf("Process: %v", err)
	}
	count := map[string]int{}
	for _, v := range sink.values {
		count[v]++
	}
	if count["a"] != 200 || count["b"] != 200 || count["c"] != 200 || len(count) != 3 {
		t.Errorf("branch outputs = %v, want 200 each of a, b, c", count)
	}
	if !firstGotOriginal.Load() {
		t.Error("the first processor did not always get the original payload")
	}
	if c := l.created.Load(); c != 600 {
		t.Errorf("%d payloads created, want 200 originals + 400 clones", c)
	}
	l.check(t)
}

// TestBroadcastSlowBranchDoesNotStallOthers holds one branch and checks the
// other keeps going as far as the slow branch's buffer allows.
func TestBroadcastSlowBranchDoesNotStallOthers(t *testing.T) {
	const buffer = 16
	var l ledger
	release := make(chan struct{})
	var fast atomic.Int64
	reached := make(chan struct{})
	slow := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		<-release
		return p, nil
	})
	quick := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
		if fast.Add(1) == buffer {
			close(reached)
		}
		return p, nil
	})
	p := pipeline.NewWithOptions(pipeline.Options{BufferSize: buffer}, pipeline.Broadcast(quick, slow))
	done := make(chan error, 1)
	go func() { done <- p.Process(context.Background(), &sliceSource{l: &l, n: 100}, &collectSink{}) }()
	select {
	case <-reached:
	case <-time.After(10 * time.Second):
		t.Error("the fast branch stalled behind the slow one")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Process: %v", err)
	}
	l.check(t)
}

func TestBroadcastCloneFailure(t *testing.T) {
	var l ledger
	src := &badCloneSource{sliceSource: sliceSource{l: &l, n: 50}}
	err := pipeline.New(pipeline.Broadcast(passThrough, passThrough)).Process(context.Background(), src, discardSink{})
	wantStageErr(t, err, 0, pipeline.ErrNilPayload)
	l.check(t)
}

// badCloneSource emits payloads whose Clone returns nil from id 10 on.
type badCloneSource struct{ sliceSource }

func (s *badCloneSource) Payload() pipeline.Payload {
	return &badClone{testPayload: s.cur.(*testPayload)}
}

type badClone struct{ *testPayload }

func (b *badClone) Clone() pipeline.Payload {
	if b.id >= 10 {
		return nil
	}
	return &badClone{testPayload: b.testPayload.Clone().(*testPayload)}
}

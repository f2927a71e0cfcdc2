package pipeline_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/linksrus/linksrus/pipeline"
)

// ledger counts what happens to the payloads of one test, to check that each
// payload is marked processed exactly once.
type ledger struct {
	created atomic.Int64 // payloads made by the source or by Clone
	marked  atomic.Int64
	twice   atomic.Int64 // MarkAsProcessed calls on an already marked payload
}

// check fails t unless every payload created was marked exactly once.
func (l *ledger) check(t *testing.T) {
	t.Helper()
	if n := l.twice.Load(); n != 0 {
		t.Errorf("%d payloads marked processed more than once", n)
	}
	if c, m := l.created.Load(), l.marked.Load(); c != m {
		t.Errorf("%d payloads created, %d marked processed", c, m)
	}
}

// testPayload is a payload that reports to its ledger.
type testPayload struct {
	l      *ledger
	id     int
	value  string
	marked atomic.Bool
}

func (l *ledger) newPayload(id int) *testPayload {
	l.created.Add(1)
	return &testPayload{l: l, id: id}
}

func (p *testPayload) Clone() pipeline.Payload {
	c := p.l.newPayload(p.id)
	c.value = p.value
	return c
}

func (p *testPayload) MarkAsProcessed() {
	if p.marked.Swap(true) {
		p.l.twice.Add(1)
		return
	}
	p.l.marked.Add(1)
}

// sliceSource emits n payloads with ids 0..n-1; after that it fails with
// err if it is set.
type sliceSource struct {
	l    *ledger
	n    int
	i    int
	err  error
	cur  pipeline.Payload
	next func(ctx context.Context, i int) bool // optional hook, may block
}

func (s *sliceSource) Next(ctx context.Context) bool {
	if s.i >= s.n {
		return false
	}
	if s.next != nil && !s.next(ctx, s.i) {
		return false
	}
	s.cur = s.l.newPayload(s.i)
	s.i++
	return true
}

func (s *sliceSource) Payload() pipeline.Payload { return s.cur }

func (s *sliceSource) Error() error {
	if s.i >= s.n {
		return s.err
	}
	return nil
}

// collectSink records the ids and values it consumes.
type collectSink struct {
	mu      sync.Mutex
	ids     []int
	values  []string
	consume func(ctx context.Context, p *testPayload) error // optional hook
}

func (s *collectSink) Consume(ctx context.Context, p pipeline.Payload) error {
	tp := p.(*testPayload)
	if s.consume != nil {
		if err := s.consume(ctx, tp); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids = append(s.ids, tp.id)
	s.values = append(s.values, tp.value)
	return nil
}

func (s *collectSink) got() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.ids...)
}

// passThrough forwards its input unchanged.
var passThrough = pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
	return p, nil
})

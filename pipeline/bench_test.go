package pipeline_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/linksrus/linksrus/pipeline"
)

// The benchmarks push b.N pooled payloads through one run, so ns/op and
// allocs/op are per payload (the per-run setup is spread over b.N). The
// processors do nothing: what is measured is the pipeline's own cost.

var benchPool = sync.Pool{New: func() any { return new(benchPayload) }}

type benchPayload struct{ n int }

func (p *benchPayload) Clone() pipeline.Payload {
	c := benchPool.Get().(*benchPayload)
	c.n = p.n
	return c
}

func (p *benchPayload) MarkAsProcessed() { benchPool.Put(p) }

type benchSource struct {
	n   int
	cur pipeline.Payload
}

func (s *benchSource) Next(context.Context) bool {
	if s.n == 0 {
		return false
	}
	s.n--
	p := benchPool.Get().(*benchPayload)
	p.n = s.n
	s.cur = p
	return true
}

func (s *benchSource) Payload() pipeline.Payload { return s.cur }
func (s *benchSource) Error() error              { return nil }

type discardSink struct{}

func (discardSink) Consume(context.Context, pipeline.Payload) error { return nil }

func benchPipeline(b *testing.B, p *pipeline.Pipeline) {
	b.Helper()
	b.ReportAllocs()
	b.ResetTimer()
	if err := p.Process(context.Background(), &benchSource{n: b.N}, discardSink{}); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkFIFO(b *testing.B) {
	benchPipeline(b, pipeline.New(pipeline.FIFO(passThrough)))
}

func BenchmarkFixedWorkerPool(b *testing.B) {
	benchPipeline(b, pipeline.New(pipeline.FixedWorkerPool(passThrough, 4)))
}

func BenchmarkDynamicWorkerPool(b *testing.B) {
	benchPipeline(b, pipeline.New(pipeline.DynamicWorkerPool(passThrough, 4)))
}

func BenchmarkOrderedWorkerPool(b *testing.B) {
	benchPipeline(b, pipeline.New(pipeline.OrderedWorkerPool(passThrough, 4)))
}

func BenchmarkBroadcast(b *testing.B) {
	benchPipeline(b, pipeline.New(pipeline.Broadcast(passThrough, passThrough)))
}

func BenchmarkBatch(b *testing.B) {
	noop := pipeline.BatchProcessorFunc(func(context.Context, []pipeline.Payload) error { return nil })
	benchPipeline(b, pipeline.New(pipeline.Batch(noop, 64, 0)))
}

// BenchmarkScatterGather: a batch to two stores side by side and back,
// against the same two one after the other (two Batch stages): the join
// costs about what one more stage does, and no allocation per payload.
func BenchmarkScatterGather(b *testing.B) {
	noop := pipeline.BatchProcessorFunc(func(context.Context, []pipeline.Payload) error { return nil })
	b.Run("scatter-gather", func(b *testing.B) {
		benchPipeline(b, pipeline.New(pipeline.ScatterGather([]pipeline.BatchProcessor{noop, noop}, 64, 0, 1)))
	})
	b.Run("sequential", func(b *testing.B) {
		benchPipeline(b, pipeline.New(pipeline.Batch(noop, 64, 0), pipeline.Batch(noop, 64, 0)))
	})
	// Stores that wait (as on an fsync). The throughput comes out the
	// same: one after the other, the two stages already overlap across
	// batches, as a pipeline's stages do. What side by side changes is
	// each payload's wait, the slower store's rather than both in turn.
	slow := pipeline.BatchProcessorFunc(func(context.Context, []pipeline.Payload) error {
		time.Sleep(200 * time.Microsecond)
		return nil
	})
	b.Run("scatter-gather-slow", func(b *testing.B) {
		benchPipeline(b, pipeline.New(pipeline.ScatterGather([]pipeline.BatchProcessor{slow, slow}, 64, 0, 1)))
	})
	b.Run("sequential-slow", func(b *testing.B) {
		benchPipeline(b, pipeline.New(pipeline.Batch(slow, 64, 0), pipeline.Batch(slow, 64, 0)))
	})
}

// The reference shape of the issue: source → 3 pass-through FIFO stages →
// broadcast to 2 pass-throughs → sink. Compare BenchmarkReference/pipeline
// with BenchmarkReference/handwritten*, run together; pipeline-unbatched
// shows what the batched hand-offs between built-in components buy.

func referenceStages() []pipeline.StageRunner {
	return []pipeline.StageRunner{
		pipeline.FIFO(passThrough),
		pipeline.FIFO(passThrough),
		pipeline.FIFO(passThrough),
		pipeline.Broadcast(passThrough, passThrough),
	}
}

func BenchmarkReference(b *testing.B) {
	b.Run("pipeline", func(b *testing.B) {
		benchPipeline(b, pipeline.New(referenceStages()...))
	})
	b.Run("pipeline-unbatched", func(b *testing.B) {
		var stages []pipeline.StageRunner
		for _, r := range referenceStages() {
			stages = append(stages, opaque{r})
		}
		benchPipeline(b, pipeline.New(stages...))
	})
	b.Run("pipeline-unbuffered", func(b *testing.B) {
		benchPipeline(b, pipeline.NewWithOptions(pipeline.Options{BufferSize: pipeline.Unbuffered}, referenceStages()...))
	})
	b.Run("handwritten-fanout", func(b *testing.B) {
		b.ReportAllocs()
		handwritten(b, b.N, true)
	})
	b.Run("handwritten", func(b *testing.B) {
		b.ReportAllocs()
		handwritten(b, b.N, false)
	})
}

// opaque hides that a runner is built in, so the pipeline connects it with
// plain channels as it does a custom runner.
type opaque struct{ pipeline.StageRunner }

// BenchmarkReferenceBufferSize shows what the channel capacity buys on the
// reference shape: the cost per payload falls steeply up to the default and
// slowly after it, while the payloads a run can hold grow linearly.
func BenchmarkReferenceBufferSize(b *testing.B) {
	for _, n := range []int{8, pipeline.DefaultBufferSize, 128} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			benchPipeline(b, pipeline.NewWithOptions(pipeline.Options{BufferSize: n}, referenceStages()...))
		})
	}
}

// handwritten is the plain version of the reference shape a Go programmer
// would write without the package: one goroutine per stage, unbuffered
// channels, every send and receive in a select on the context. With fanout
// the broadcast is a dispatcher goroutine feeding one goroutine per branch,
// as the package does; without, one goroutine clones and runs both
// branches, which saves hand-offs.
func handwritten(b *testing.B, n int, fanout bool) {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	proc := passThrough

	stage := func(in <-chan pipeline.Payload, out chan<- pipeline.Payload) {
		defer wg.Done()
		defer close(out)
		for {
			select {
			case p, ok := <-in:
				if !ok {
					return
				}
				q, err := proc(ctx, p)
				if err != nil {
					b.Error(err)
					return
				}
				select {
				case out <- q:
				case <-ctx.Done():
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}

	src := make(chan pipeline.Payload)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(src)
		s := &benchSource{n: n}
		for s.Next(ctx) {
			select {
			case src <- s.Payload():
			case <-ctx.Done():
				return
			}
		}
	}()
	in := src
	for range 3 {
		out := make(chan pipeline.Payload)
		wg.Add(1)
		go stage(in, out)
		in = out
	}

	sinkIn := make(chan pipeline.Payload)
	if fanout {
		br := []chan pipeline.Payload{make(chan pipeline.Payload), make(chan pipeline.Payload)}
		merged := []chan pipeline.Payload{make(chan pipeline.Payload), make(chan pipeline.Payload)}
		wg.Add(1)
		go func(in <-chan pipeline.Payload) {
			defer wg.Done()
			defer close(br[0])
			defer close(br[1])
			for {
				select {
				case p, ok := <-in:
					if !ok {
						return
					}
					c := p.Clone()
					for i, q := range []pipeline.Payload{p, c} {
						select {
						case br[i] <- q:
						case <-ctx.Done():
							return
						}
					}
				case <-ctx.Done():
					return
				}
			}
		}(in)
		for i := range br {
			wg.Add(1)
			go stage(br[i], merged[i])
		}
		// Both branches write to the sink; close it when both are done.
		var bw sync.WaitGroup
		for i := range merged {
			bw.Add(1)
			go func() {
				defer bw.Done()
				for p := range merged[i] {
					select {
					case sinkIn <- p:
					case <-ctx.Done():
					}
				}
			}()
		}
		go func() { bw.Wait(); close(sinkIn) }()
	} else {
		wg.Add(1)
		go func(in <-chan pipeline.Payload) {
			defer wg.Done()
			defer close(sinkIn)
			for {
				select {
				case p, ok := <-in:
					if !ok {
						return
					}
					c := p.Clone()
					for _, q := range []pipeline.Payload{p, c} {
						r, _ := proc(ctx, q)
						select {
						case sinkIn <- r:
						case <-ctx.Done():
							return
						}
					}
				case <-ctx.Done():
					return
				}
			}
		}(in)
	}

	b.ResetTimer()
	var sink discardSink
	for p := range sinkIn {
		if err := sink.Consume(ctx, p); err != nil {
			b.Error(err)
		}
		p.MarkAsProcessed()
	}
	wg.Wait()
}

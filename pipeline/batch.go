package pipeline

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// BatchProcessor is implemented by user code that handles many payloads in
// one call, such as one database transaction for many records.
type BatchProcessor interface {
	// ProcessBatch processes batch in place. Leaving batch[i] unchanged
	// forwards it; setting it to nil drops it (the pipeline marks it
	// processed); setting it to another payload forwards that one instead,
	// and the processor takes over the original. On error nothing is
	// forwarded and the pipeline marks every original payload processed.
	// The slice is reused for the next batch: do not keep it.
	ProcessBatch(ctx context.Context, batch []Payload) error
}

// BatchProcessorFunc adapts a function to the BatchProcessor interface.
type BatchProcessorFunc func(ctx context.Context, batch []Payload) error

// ProcessBatch calls f(ctx, batch).
func (f BatchProcessorFunc) ProcessBatch(ctx context.Context, batch []Payload) error {
	return f(ctx, batch)
}

// Batch returns a StageRunner that collects payloads into batches of at most
// maxSize and passes each batch to proc in one call, in arrival order.
//
// A batch is flushed when it is full, when maxDelay has passed since its
// first payload arrived, or when the input is closed. With maxDelay <= 0 a
// batch is also flushed whenever no further payload is ready at once, so
// the stage batches only what has queued up and never waits. With
// FlushOnPause, a batch waiting for maxDelay is also flushed as soon as
// the input pauses, and with FlushOnSignal as soon as asked; with
// FlushAtWeight, a batch is full at a weight as well as at maxSize
// payloads.
//
// Surviving payloads are emitted in batch order. An error, or a panic in
// proc, is reported and ends the stage; every payload of the batch is marked
// processed. When the run stops, the payloads held are marked processed.
// maxSize must be at least 1.
func Batch(proc BatchProcessor, maxSize int, maxDelay time.Duration, opts ...BatchOption) StageRunner {
	return newBatcher("Batch", proc, maxSize, maxDelay, 1, opts)
}

// BatchOption refines how a batching stage (Batch, BatchPool,
// ScatterGather) forms its batches.
type BatchOption func(*batcher)

// FlushAtWeight bounds a batch by the weight of its payloads as well as by
// their number: a batch is flushed as soon as the weights of its payloads,
// as weight tells them, add up to limit or more. A batch of few heavy
// payloads (bytes held, say) then goes out early, so that maxSize can be
// set for the common light payload without letting a run of heavy ones
// pile up. limit must be positive and weight not nil.
func FlushAtWeight(limit int64, weight func(Payload) int64) BatchOption {
	return func(b *batcher) {
		if (limit <= 0 || weight == nil) && b.err == nil {
			b.err = fmt.Errorf("%w: %s: weight limit %d with weight func %v (want a positive limit and a func)",
				ErrInvalidConfig, b.name, limit, weight != nil)
		}
		b.weightLimit, b.weight = limit, weight
	}
}

// FlushOnPause makes a batch that waits up to maxDelay to fill flush early
// once no payload has arrived for pause: it lingers only while payloads
// keep coming.
//
// A store that pays per commit (an fsync, an index segment) wants large
// batches, so it waits for maxDelay; but a producer that has nothing more
// for now, such as a crawl whose next pages depend on the links of those
// held, would only be kept waiting. A pause much shorter than maxDelay and
// much longer than the gap between payloads of a busy stream tells the two
// apart: under load batches fill for maxDelay, and a lone payload waits
// only pause. It has no effect without a positive maxDelay; pause must not
// be negative.
func FlushOnPause(pause time.Duration) BatchOption {
	return func(b *batcher) {
		if pause < 0 && b.err == nil {
			b.err = fmt.Errorf("%w: %s: pause %v (want >= 0)", ErrInvalidConfig, b.name, pause)
		}
		b.pause = pause
	}
}

// FlushOnSignal makes a batch that waits to fill go as soon as a value is
// received from signal: a consumer further on that has run out of work
// (a crawl whose next pages hide among the links of the pages held) asks
// for what is held now (what has arrived at the stage), however busy the
// input still is. One value flushes one batch: with several workers
// (BatchPool, ScatterGather), send one per worker to flush them all. A
// value that arrives with nothing held is kept for the next batch, which
// then goes at its first chance. signal must not be nil.
func FlushOnSignal(signal <-chan struct{}) BatchOption {
	return func(b *batcher) {
		if signal == nil && b.err == nil {
			b.err = fmt.Errorf("%w: %s: nil flush signal", ErrInvalidConfig, b.name)
		}
		b.signal = signal
	}
}

// BatchPool is Batch with numWorkers batches in flight at once: each worker
// collects its own batch from the stage's input and calls proc with it, so
// proc must be safe for concurrent use, and batches leave the stage in no
// particular order (payloads within a batch keep theirs).
//
// It is for a processor whose calls mostly wait, such as a write to a
// database server over the network: while one batch is on the wire the
// next is being gathered and sent, so the stage's throughput is no longer
// one round trip per batch. Each worker batches, flushes and stops as Batch
// describes; numWorkers must be at least 1, and 1 is Batch.
func BatchPool(proc BatchProcessor, maxSize int, maxDelay time.Duration, numWorkers int, opts ...BatchOption) StageRunner {
	return newBatcher("BatchPool", proc, maxSize, maxDelay, numWorkers, opts)
}

func newBatcher(name string, proc BatchProcessor, maxSize int, maxDelay time.Duration, workers int, opts []BatchOption) batcher {
	b := batcher{name: name, proc: proc, size: maxSize, delay: maxDelay, workers: workers}
	switch {
	case proc == nil:
		b.err = fmt.Errorf("%w: %s: nil processor", ErrInvalidConfig, name)
	case maxSize < 1:
		b.err = fmt.Errorf("%w: %s: max size %d (want >= 1)", ErrInvalidConfig, name, maxSize)
	case workers < 1:
		b.err = fmt.Errorf("%w: %s: %d workers (want >= 1)", ErrInvalidConfig, name, workers)
	}
	for _, opt := range opts {
		opt(&b)
	}
	return b
}

type batcher struct {
	name  string
	proc  BatchProcessor
	size  int
	delay time.Duration
	pause time.Duration // see FlushOnPause; 0: wait for delay
	// weight and weightLimit bound a batch's weight (FlushAtWeight); nil:
	// only its size counts.
	weight      func(Payload) int64
	weightLimit int64
	// signal flushes a waiting batch (FlushOnSignal); nil: none.
	signal  <-chan struct{}
	workers int
	err     error
}

func (b batcher) validate() error { return b.err }

// The stage waits for its input with a timer, so it reads a channel; its
// output can be batched.
func (batcher) batchesIn() bool { return false }

// Run implements StageRunner.
func (b batcher) Run(ctx context.Context, params StageParams) {
	if b.err != nil {
		reportInvalid(params, b.err)
		return
	}
	if b.workers <= 1 {
		b.newRun(ctx, params).run()
		return
	}
	var wg sync.WaitGroup
	for range b.workers {
		r := b.newRun(ctx, params)
		wg.Go(r.run)
	}
	wg.Wait()
}

func (b batcher) newRun(ctx context.Context, params StageParams) *batchRun {
	st := statsOf(params)
	return &batchRun{
		batcher: b,
		ctx:     ctx,
		in:      params.Input(),
		out:     outboxOf(params, st),
		errCh:   params.Error(),
		w:       newDispatcher(ctx, st),
		batch:   make([]Payload, 0, b.size),
		orig:    make([]Payload, 0, b.size),
	}
}

// batchRun is the state of one Run of a batcher.
type batchRun struct {
	batcher
	ctx   context.Context
	in    <-chan Payload
	out   outbox
	errCh chan<- error
	w     worker
	batch []Payload   // what proc sees and may rewrite
	orig  []Payload   // the payloads as received, to mark those proc drops
	held  int64       // the batch's weight, with FlushAtWeight
	timer *time.Timer // the batch's maxDelay
	idle  *time.Timer // the input's pause, with FlushOnPause
}

func (r *batchRun) run() {
	defer r.abandon()
	if r.delay > 0 {
		r.timer = time.NewTimer(r.delay)
		r.timer.Stop()
		defer r.timer.Stop()
		if r.pause > 0 {
			r.idle = time.NewTimer(r.pause)
			r.idle.Stop()
			defer r.idle.Stop()
		}
	}
	for {
		if len(r.batch) == 0 {
			// Nothing held: wait for the first payload of a batch.
			p, status := r.w.recv(r.in)
			if status != received {
				return
			}
			r.add(p)
			if r.timer != nil {
				r.timer.Reset(r.delay)
			}
		} else if !r.next() {
			return
		}
		if r.full() && !r.flush() {
			return
		}
	}
}

// next adds the next payload to a non-empty batch, or flushes the batch if
// it is due first. It returns false when the stage must stop.
func (r *batchRun) next() bool {
	if r.w.isStopped() {
		return false
	}
	if r.signal != nil {
		select {
		case <-r.signal:
			return r.flushAsked()
		default:
		}
	}
	select {
	case p, ok := <-r.in:
		if !ok {
			r.flush()
			return false
		}
		r.add(p)
		return true
	default:
	}
	if r.timer == nil {
		return r.flush()
	}
	// Nothing is ready: wait for the next payload, the batch's delay, or
	// (with FlushOnPause) a pause of the input, which only starts now.
	var paused <-chan time.Time
	if r.idle != nil {
		r.idle.Reset(r.pause)
		defer r.idle.Stop()
		paused = r.idle.C
	}
	select {
	case p, ok := <-r.in:
		if !ok {
			r.flush()
			return false
		}
		r.add(p)
		return true
	case <-r.timer.C:
		return r.flush()
	case <-paused:
		return r.flush()
	case <-r.signal:
		return r.flushAsked()
	case <-r.w.done:
		return false
	}
}

// flushAsked flushes the batch when asked to (FlushOnSignal), with the
// payloads that have already arrived: those are held too, as far as
// whoever asked can tell.
func (r *batchRun) flushAsked() bool {
	for !r.full() {
		select {
		case p, ok := <-r.in:
			if !ok {
				r.flush()
				return false
			}
			r.add(p)
		default:
			return r.flush()
		}
	}
	return r.flush()
}

func (r *batchRun) add(p Payload) {
	r.w.stats.in.Add(1)
	r.batch = append(r.batch, p)
	if r.weight != nil {
		r.held += r.weight(p)
	}
}

// full reports whether the batch must go: it holds maxSize payloads, or
// their weight limit.
func (r *batchRun) full() bool {
	return len(r.batch) >= r.size || (r.weight != nil && r.held >= r.weightLimit)
}

// flush processes the batch and forwards what survives. It returns false
// when the stage must stop.
func (r *batchRun) flush() bool {
	if r.timer != nil {
		r.timer.Stop()
	}
	st := r.w.stats
	r.orig = append(r.orig[:0], r.batch...)
	start := time.Now()
	err := safeProcessBatch(r.ctx, r.proc, r.batch)
	st.busy.Add(int64(time.Since(start)))
	if err != nil {
		st.failed.Add(uint64(len(r.orig)))
		for _, p := range r.orig {
			p.MarkAsProcessed()
		}
		r.reset()
		r.errCh <- err
		return false
	}
	for i, q := range r.batch {
		if q == nil {
			st.dropped.Add(1)
			r.orig[i].MarkAsProcessed()
			continue
		}
		if !r.out.put(&r.w, q) { // put released q
			r.release(i + 1)
			r.reset()
			return false
		}
	}
	r.reset()
	return true
}

// release marks processed what is left of a processed batch from index i
// on, when the run stops before it could all be forwarded.
func (r *batchRun) release(i int) {
	st := r.w.stats
	for j := i; j < len(r.batch); j++ {
		if r.batch[j] == nil {
			st.dropped.Add(1)
			r.orig[j].MarkAsProcessed()
		} else {
			st.abandoned.Add(1)
			r.batch[j].MarkAsProcessed()
		}
	}
}

func (r *batchRun) reset() {
	r.held = 0
	clear(r.batch)
	r.batch = r.batch[:0]
	clear(r.orig)
	r.orig = r.orig[:0]
}

// abandon marks processed the payloads held when the stage stops.
func (r *batchRun) abandon() {
	for _, p := range r.batch {
		if p != nil {
			p.MarkAsProcessed()
			r.w.stats.abandoned.Add(1)
		}
	}
	r.reset()
}

func safeProcessBatch(ctx context.Context, proc BatchProcessor, batch []Payload) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = newPanicError(r)
		}
	}()
	return proc.ProcessBatch(ctx, batch)
}

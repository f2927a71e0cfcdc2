package pipeline

import (
	"context"
	"fmt"
)

// DynamicWorkerPool returns a StageRunner that starts workers on demand, never
// more than maxWorkers at once: a payload arriving while every running
// worker is busy gets a new worker if one of the maxWorkers tokens is free,
// and waits for one otherwise. A worker keeps taking payloads while the
// input has some ready and exits as soon as it would have to wait, returning
// its token, so an idle stage holds no goroutines and a busy one does not
// start a goroutine per payload.
//
// proc must be safe for concurrent use; payloads leave the stage in no
// particular order. Results, drops, errors and panics are handled as by FIFO.
// Run returns after every worker has exited. maxWorkers must be at least 1.
func DynamicWorkerPool(proc Processor, maxWorkers int) StageRunner {
	d := dynamicPool{proc: proc, max: maxWorkers}
	switch {
	case proc == nil:
		d.err = fmt.Errorf("%w: DynamicWorkerPool: nil processor", ErrInvalidConfig)
	case maxWorkers < 1:
		d.err = fmt.Errorf("%w: DynamicWorkerPool: %d max workers (want >= 1)", ErrInvalidConfig, maxWorkers)
	}
	return d
}

type dynamicPool struct {
	proc Processor
	max  int
	err  error
}

func (d dynamicPool) validate() error { return d.err }

// The dispatcher hands single payloads to the workers.
func (dynamicPool) batchesIn() bool { return false }

// Run implements StageRunner.
func (d dynamicPool) Run(ctx context.Context, params StageParams) {
	if d.err != nil {
		reportInvalid(params, d.err)
		return
	}
	st := statsOf(params)
	in, errCh := params.Input(), params.Error()

	// A running worker holds one of the max slots of tokens. The tokens are
	// per Run, so concurrent runs of one pipeline are bounded separately.
	tokens := make(chan struct{}, d.max)
	defer func() {
		// Taking back every token waits for every worker to exit.
		for range d.max {
			tokens <- struct{}{}
		}
	}()

	disp := newDispatcher(ctx, st)
	for {
		p, status := disp.recv(in)
		if status != received {
			return
		}
		st.in.Add(1)
		if !disp.acquire(tokens) {
			st.abandoned.Add(1)
			p.MarkAsProcessed()
			return
		}
		go d.work(ctx, p, in, outboxOf(params, st), errCh, st, tokens)
	}
}

// work processes p, then whatever in has ready, and returns its token.
func (d dynamicPool) work(ctx context.Context, p Payload, in <-chan Payload, out outbox, errCh chan<- error, st *stageStats, tokens <-chan struct{}) {
	defer func() { <-tokens }()
	w := newWorker(ctx, st)
	defer w.finish()
	for {
		if !w.process(ctx, d.proc, p, &out, errCh) || w.isStopped() {
			return
		}
		var ok bool
		select {
		case p, ok = <-in:
			if !ok {
				return
			}
			st.in.Add(1)
		default:
			return
		}
	}
}

// acquire takes a token, waiting for one if needed, unless the run stops.
func (w *worker) acquire(tokens chan<- struct{}) bool {
	select {
	case tokens <- struct{}{}:
		return true
	default:
	}
	select {
	case tokens <- struct{}{}:
		return true
	case <-w.done:
		return false
	}
}

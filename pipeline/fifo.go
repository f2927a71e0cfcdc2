package pipeline

import (
	"context"
	"fmt"
)

// FIFO returns a StageRunner that passes payloads to proc one at a time, in
// the order they arrive, and emits the results in that same order.
//
// A nil result drops the payload. An error, or a panic in proc, is reported
// and ends the stage (and so the run). When the run stops, the payload being
// handled is marked processed.
func FIFO(proc Processor) StageRunner {
	f := fifo{proc: proc}
	if proc == nil {
		f.err = fmt.Errorf("%w: FIFO: nil processor", ErrInvalidConfig)
	}
	return f
}

type fifo struct {
	proc Processor
	err  error
}

func (f fifo) validate() error { return f.err }

func (fifo) batchesIn() bool { return true }

// Run implements StageRunner.
func (f fifo) Run(ctx context.Context, params StageParams) {
	if f.err != nil {
		reportInvalid(params, f.err)
		return
	}
	st := statsOf(params)
	runFIFO(ctx, f.proc, inboxOf(params, st), outboxOf(params, st), params.Error(), st)
}

// runFIFO is the loop of FIFO, of every FixedWorkerPool worker and of every
// Broadcast branch.
func runFIFO(ctx context.Context, proc Processor, in inbox, out outbox, errCh chan<- error, st *stageStats) {
	w := newWorker(ctx, st)
	defer w.finish()
	defer in.abandon()
	for {
		p, status := in.recv(&w)
		if status != received {
			return
		}
		if !w.process(ctx, proc, p, &out, errCh) {
			return
		}
	}
}

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

// Run implements StageRunner.
func (f fifo) Run(ctx context.Context, params StageParams) {
	if f.err != nil {
		reportInvalid(params, f.err)
		return
	}
	runFIFO(ctx, f.proc, params.Input(), params.Output(), params.Error(), statsOf(params), true)
}

// runFIFO is the loop of FIFO, of every FixedWorkerPool worker and of every
// Broadcast branch. countIn is false for Broadcast branches, whose
// dispatcher counts the copies.
func runFIFO(ctx context.Context, proc Processor, in <-chan Payload, out chan<- Payload, errCh chan<- error, st *stageStats, countIn bool) {
	w := newWorker(ctx, st)
	defer w.finish()
	for {
		p, status := w.recv(in)
		if status != received {
			return
		}
		if countIn {
			st.in.Add(1)
		}
		if !w.process(ctx, proc, p, out, errCh) {
			return
		}
	}
}

package pipeline

import (
	"context"
	"fmt"
	"sync"
)

// FixedWorkerPool returns a StageRunner that runs numWorkers goroutines, each
// taking the next payload from the stage's input as soon as it is free and
// passing it to proc. Payloads are processed in parallel, so proc must be
// safe for concurrent use, and they leave the stage in no particular order
// (see OrderedWorkerPool to keep it).
//
// Results, drops, errors and panics are handled as by FIFO. Run returns
// after every worker has exited. numWorkers must be at least 1.
func FixedWorkerPool(proc Processor, numWorkers int) StageRunner {
	f := fixedPool{proc: proc, workers: numWorkers}
	switch {
	case proc == nil:
		f.err = fmt.Errorf("%w: FixedWorkerPool: nil processor", ErrInvalidConfig)
	case numWorkers < 1:
		f.err = fmt.Errorf("%w: FixedWorkerPool: %d workers (want >= 1)", ErrInvalidConfig, numWorkers)
	}
	return f
}

type fixedPool struct {
	proc    Processor
	workers int
	err     error
}

func (f fixedPool) validate() error { return f.err }

// A pool spreads single payloads over its workers, so that a batch does not
// go to one worker while the others idle.
func (fixedPool) batchesIn() bool { return false }

// Run implements StageRunner.
func (f fixedPool) Run(ctx context.Context, params StageParams) {
	if f.err != nil {
		reportInvalid(params, f.err)
		return
	}
	st := statsOf(params)
	var wg sync.WaitGroup
	defer wg.Wait()
	for range f.workers {
		wg.Go(func() {
			runFIFO(ctx, f.proc, inboxOf(params, st), outboxOf(params, st), params.Error(), st)
		})
	}
}

package pipeline

import (
	"context"
	"fmt"
	"sync"
)

// OrderedWorkerPool returns a StageRunner that processes payloads on
// numWorkers goroutines in parallel and still emits the results in the order
// the payloads arrived, dropped ones left out.
//
// Payloads are dealt to the workers in turn, each worker with its own input
// and result buffers of Options.BufferSize payloads, and results are
// collected in the same turn. One slow payload therefore holds back the
// output of the others only until the buffers behind it are full; the
// buffers bound the memory the stage can hold. proc must be safe for
// concurrent use.
//
// Drops, errors and panics are handled as by FIFO. Run returns after every
// goroutine it started has exited. numWorkers must be at least 1.
func OrderedWorkerPool(proc Processor, numWorkers int) StageRunner {
	o := orderedPool{proc: proc, workers: numWorkers}
	switch {
	case proc == nil:
		o.err = fmt.Errorf("%w: OrderedWorkerPool: nil processor", ErrInvalidConfig)
	case numWorkers < 1:
		o.err = fmt.Errorf("%w: OrderedWorkerPool: %d workers (want >= 1)", ErrInvalidConfig, numWorkers)
	}
	return o
}

type orderedPool struct {
	proc    Processor
	workers int
	err     error
}

func (o orderedPool) validate() error { return o.err }

// One goroutine deals the input and one collects the output, so both can
// be batched.
func (orderedPool) batchesIn() bool { return true }

// Run implements StageRunner.
func (o orderedPool) Run(ctx context.Context, params StageParams) {
	if o.err != nil {
		reportInvalid(params, o.err)
		return
	}
	st := statsOf(params)
	buf := bufferOf(params)
	n := o.workers

	// jobs[i] feeds worker i; worker i answers every job on results[i] in
	// order, with nil for a payload that did not survive, so that the
	// collector can follow the same turn as the dealer.
	jobs := make([]chan Payload, n)
	results := make([]chan Payload, n)
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := range n {
		jobs[i] = make(chan Payload, buf)
		results[i] = make(chan Payload, buf)
		wg.Go(func() { o.work(ctx, jobs[i], results[i], params.Error(), st) })
	}
	wg.Go(func() { o.deal(ctx, inboxOf(params, st), jobs, st) })
	o.collect(ctx, results, outboxOf(params, st), st)
}

// deal hands the stage's input to the workers in turn.
func (o orderedPool) deal(ctx context.Context, in inbox, jobs []chan Payload, st *stageStats) {
	defer func() {
		for _, ch := range jobs {
			close(ch)
		}
	}()
	disp := newDispatcher(ctx, st)
	defer in.abandon()
	for k := 0; ; k = (k + 1) % len(jobs) {
		p, status := in.recv(&disp)
		if status != received {
			return
		}
		if !disp.send(jobs[k], p) {
			st.abandoned.Add(1)
			p.MarkAsProcessed()
			return
		}
	}
}

// work processes its jobs in order and answers each on results.
func (o orderedPool) work(ctx context.Context, jobs <-chan Payload, results chan<- Payload, errCh chan<- error, st *stageStats) {
	defer drain(jobs, &st.abandoned) // after an early exit, until deal closes jobs
	defer close(results)
	w := newWorker(ctx, st)
	defer w.finish()
	for {
		p, status := w.recv(jobs)
		if status != received {
			return
		}
		q, err := safeProcess(ctx, o.proc, p)
		switch {
		case err != nil:
			st.failed.Add(1)
			p.MarkAsProcessed()
			errCh <- err
			return
		case q == nil:
			st.dropped.Add(1)
			p.MarkAsProcessed()
		}
		// q is nil for a drop: the collector skips it but keeps the turn.
		if !w.send(results, q) {
			if q != nil {
				st.abandoned.Add(1)
				q.MarkAsProcessed()
			}
			return
		}
	}
}

// collect emits the workers' results in the order they were dealt. The
// first closed result channel in that order means no job was dealt after
// it; whatever is left in the others then was abandoned.
func (o orderedPool) collect(ctx context.Context, results []chan Payload, out outbox, st *stageStats) {
	defer func() {
		for _, ch := range results {
			drain(ch, &st.abandoned)
		}
	}()
	coll := newDispatcher(ctx, st)
	for k := 0; ; k = (k + 1) % len(results) {
		q, status := coll.recv(results[k])
		if status != received {
			return
		}
		if q == nil {
			continue
		}
		if !out.put(&coll, q) { // put released q
			return
		}
	}
}

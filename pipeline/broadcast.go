package pipeline

import (
	"context"
	"fmt"
	"sync"
)

// Broadcast returns a StageRunner that gives every payload to each of procs,
// each processor working on its own copy: the first gets the original, the
// others clones made with Payload.Clone before any copy is handed out, so
// that no processor can modify a payload while it is being cloned. Every
// copy that a processor returns goes to the stage's output, so an N-way
// broadcast emits up to N payloads per input.
//
// Each processor runs in its own goroutine with FIFO semantics, fed through
// a buffered channel of Options.BufferSize payloads: a slow branch does not
// stall the others until its buffer is full. Copies leave the stage in no
// particular order across branches.
//
// An error, a panic, or a Clone that panics or returns nil is reported and
// ends the stage. Run returns after every branch has exited. At least one
// processor is required and none may be nil.
func Broadcast(procs ...Processor) StageRunner {
	b := broadcast{procs: procs}
	if len(procs) == 0 {
		b.err = fmt.Errorf("%w: Broadcast: no processors", ErrInvalidConfig)
	}
	for i, p := range procs {
		if p == nil {
			b.err = fmt.Errorf("%w: Broadcast: processor %d is nil", ErrInvalidConfig, i)
			break
		}
	}
	return b
}

type broadcast struct {
	procs []Processor
	err   error
}

func (b broadcast) validate() error { return b.err }

// Run implements StageRunner.
func (b broadcast) Run(ctx context.Context, params StageParams) {
	if b.err != nil {
		reportInvalid(params, b.err)
		return
	}
	st := statsOf(params)
	out, errCh := params.Output(), params.Error()
	n := len(b.procs)

	branches := make([]chan Payload, n)
	var wg sync.WaitGroup
	for i := range branches {
		ch := make(chan Payload, bufferOf(params))
		branches[i] = ch
		proc := b.procs[i]
		wg.Go(func() {
			runFIFO(ctx, proc, ch, out, errCh, st, false)
			// The branch may have stopped before its input ended.
			drain(ch, &st.abandoned)
		})
	}
	defer func() {
		for _, ch := range branches {
			close(ch)
		}
		wg.Wait()
	}()

	disp := newDispatcher(ctx, st)
	copies := make([]Payload, n)
	for {
		p, status := disp.recv(params.Input())
		if status != received {
			return
		}
		st.in.Add(uint64(n))
		if !b.dispatch(&disp, p, copies, branches, errCh) {
			return
		}
	}
}

// dispatch clones p and hands one copy to each branch. It returns false when
// the stage must stop; copies it could not hand out are marked processed.
func (b broadcast) dispatch(disp *worker, p Payload, copies []Payload, branches []chan Payload, errCh chan<- error) bool {
	defer clear(copies) // keep no reference to payloads now owned elsewhere
	copies[0] = p
	for i := 1; i < len(copies); i++ {
		c, err := safeClone(p)
		if err != nil {
			disp.stats.failed.Add(uint64(len(copies)))
			for _, q := range copies[:i] {
				q.MarkAsProcessed()
			}
			errCh <- err
			return false
		}
		copies[i] = c
	}
	for i, q := range copies {
		if !disp.send(branches[i], q) {
			disp.stats.abandoned.Add(uint64(len(copies) - i))
			for _, q := range copies[i:] {
				q.MarkAsProcessed()
			}
			return false
		}
	}
	return true
}

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

func (broadcast) batchesIn() bool { return true }

// Run implements StageRunner.
func (b broadcast) Run(ctx context.Context, params StageParams) {
	if b.err != nil {
		reportInvalid(params, b.err)
		return
	}
	st := statsOf(params)
	n := len(b.procs)
	buf := bufferOf(params)

	// The dispatcher feeds each branch through a link of its own, batched
	// unless the pipeline is unbuffered; the dispatcher counts the copies
	// it takes in, the branches what they emit.
	outs := make([]outbox, n)
	var wg sync.WaitGroup
	for i := range outs {
		var ch chan Payload
		var link *batchLink
		if buf > 0 {
			link = newBatchLink(buf, nil)
		} else {
			ch = make(chan Payload)
		}
		outs[i] = outbox{plain: ch, link: link, abandoned: &st.abandoned}
		proc := b.procs[i]
		wg.Go(func() {
			in := inbox{plain: ch, link: link, weight: 1, abandoned: &st.abandoned}
			runFIFO(ctx, proc, in, outboxOf(params, st), params.Error(), st)
			// The branch may have stopped before its input ended.
			if link != nil {
				drainBatches(link, &st.abandoned)
			} else {
				drain(ch, &st.abandoned)
			}
		})
	}
	defer func() {
		for _, o := range outs {
			o.close()
		}
		wg.Wait()
	}()

	disp := newDispatcher(ctx, st)
	in := inboxOf(params, st)
	in.weight = uint64(n) // every copy counts
	defer in.abandon()
	copies := make([]Payload, n)
	for {
		p, status := in.recv(&disp)
		if status != received {
			return
		}
		if !b.dispatch(&disp, p, copies, outs, params.Error()) {
			return
		}
	}
}

// dispatch clones p and hands one copy to each branch. It returns false when
// the stage must stop; copies it could not hand out are marked processed.
func (b broadcast) dispatch(disp *worker, p Payload, copies []Payload, outs []outbox, errCh chan<- error) bool {
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
		if !outs[i].put(disp, q) {
			// put released q; the copies after it are ours to release.
			rest := copies[i+1:]
			disp.stats.abandoned.Add(uint64(len(rest)))
			for _, q := range rest {
				q.MarkAsProcessed()
			}
			return false
		}
	}
	return true
}

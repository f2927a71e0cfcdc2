package pipeline

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrScatterReplaced is returned (wrapped) by a ScatterGather stage whose
// processor replaced a payload: only the original can rejoin its copies.
var ErrScatterReplaced = errors.New("pipeline: ScatterGather: a processor replaced a payload")

// ScatterGather returns a StageRunner that collects batches as BatchPool
// does and hands each batch to every one of procs at once, each in its own
// goroutine; the batch moves on when all of them are done with it. It is a
// fork and a join in one stage: N independent consumers of the same
// payloads (two stores, say) work side by side, and what comes after sees
// a payload only once every consumer has it.
//
// The processors get the same payloads, not copies, each in a slice of its
// own: they must only read the payloads, or write fields no other of them
// reads. A processor may drop a payload (set its entry to nil), which drops
// it for the stage: it goes on only if every processor kept it. Replacing a
// payload is an error (ErrScatterReplaced), as is any processor's error or
// panic: it ends the stage and every original payload of the batch is
// marked processed by the stage, as with Batch, and any replacement too
// (so, unlike with Batch, a processor that puts another payload in place
// must not release the original itself); the other processors' calls on
// that batch are finished first, so nothing still uses a payload once it
// is marked.
//
// numWorkers batches are gathered and scattered at once (1: one at a time);
// procs must then be safe for concurrent use, and batches leave in no
// particular order. maxSize, maxDelay, numWorkers and opts mean what they
// mean for BatchPool; at least one processor is needed.
func ScatterGather(procs []BatchProcessor, maxSize int, maxDelay time.Duration, numWorkers int, opts ...BatchOption) StageRunner {
	if len(procs) == 0 {
		return batcher{err: fmt.Errorf("%w: ScatterGather: no processors", ErrInvalidConfig)}
	}
	for i, p := range procs {
		if p == nil {
			return batcher{err: fmt.Errorf("%w: ScatterGather: processor %d is nil", ErrInvalidConfig, i)}
		}
	}
	proc := &scatter{procs: append([]BatchProcessor(nil), procs...)}
	return newBatcher("ScatterGather", proc, maxSize, maxDelay, numWorkers, opts)
}

// scatter is the BatchProcessor behind ScatterGather: it runs the first
// processor on the batch itself in the calling goroutine and the others on
// views of it in goroutines of their own, then merges their drops.
type scatter struct {
	procs []BatchProcessor
	// views holds, per call, the original batch and one view per extra
	// processor (a *[][]Payload of len(procs)), reused across batches.
	views sync.Pool
}

// ProcessBatch implements BatchProcessor.
func (s *scatter) ProcessBatch(ctx context.Context, batch []Payload) error {
	vp, _ := s.views.Get().(*[][]Payload)
	if vp == nil {
		v := make([][]Payload, len(s.procs))
		vp = &v
	}
	views := *vp
	defer func() {
		for i := range views {
			clear(views[i])
			views[i] = views[i][:0]
		}
		s.views.Put(vp)
	}()
	for i := range views {
		views[i] = append(views[i][:0], batch...)
	}
	orig := views[0]

	// A failing processor stops the others' work on the batch early.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(s.procs))
	run := func(i int, b []Payload) {
		if errs[i] = safeProcessBatch(ctx, s.procs[i], b); errs[i] != nil {
			cancel()
		}
	}
	var wg sync.WaitGroup
	for i := 1; i < len(s.procs); i++ {
		wg.Go(func() { run(i, views[i]) })
	}
	run(0, batch)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		// The stage marks the originals; replacements are released here.
		releaseReplacements(orig, batch, views[1:])
		return err
	}
	if replacedAny(orig, batch, views[1:]) {
		releaseReplacements(orig, batch, views[1:])
		return ErrScatterReplaced
	}
	for _, v := range views[1:] {
		for j, q := range v {
			if q == nil {
				batch[j] = nil
			}
		}
	}
	return nil
}

// replacedAny reports whether a processor put another payload in place of
// an original.
func replacedAny(orig, batch []Payload, views [][]Payload) bool {
	for j, o := range orig {
		if q := batch[j]; q != nil && q != o {
			return true
		}
		for _, v := range views {
			if q := v[j]; q != nil && q != o {
				return true
			}
		}
	}
	return false
}

// releaseReplacements marks processed the payloads processors put in place
// of the originals, which nothing else would release once the stage fails.
func releaseReplacements(orig, batch []Payload, views [][]Payload) {
	for j, o := range orig {
		if q := batch[j]; q != nil && q != o {
			q.MarkAsProcessed()
		}
		for _, v := range views {
			if q := v[j]; q != nil && q != o {
				q.MarkAsProcessed()
			}
		}
	}
}

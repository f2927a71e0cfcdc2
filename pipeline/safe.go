package pipeline

import (
	"context"
	"fmt"
)

// The safe* helpers call user code and turn a panic into a *PanicError, so
// that a bug triggered by one payload fails the run instead of the program.

func safeProcess(ctx context.Context, proc Processor, p Payload) (out Payload, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, newPanicError(r)
		}
	}()
	return proc.Process(ctx, p)
}

func safeClone(p Payload) (c Payload, err error) {
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("clone: %w", newPanicError(r))
		}
	}()
	if c = p.Clone(); c == nil {
		return nil, fmt.Errorf("clone: %w", ErrNilPayload)
	}
	return c, nil
}

// process runs proc on p and passes the result to out. It returns false
// when the worker must stop: proc failed (the error is sent to errCh) or the
// run is stopping. In every case p, or what proc turned it into, is either
// passed on or marked processed.
func (w *worker) process(ctx context.Context, proc Processor, p Payload, out *outbox, errCh chan<- error) bool {
	q, err := safeProcess(ctx, proc, p)
	switch {
	case err != nil:
		w.stats.failed.Add(1)
		p.MarkAsProcessed()
		errCh <- err
		return false
	case q == nil:
		w.stats.dropped.Add(1)
		p.MarkAsProcessed()
		return true
	}
	return out.put(w, q)
}

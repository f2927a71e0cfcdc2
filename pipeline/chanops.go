package pipeline

import (
	"context"
	"time"
)

// recvStatus is the outcome of worker.recv.
type recvStatus uint8

const (
	received recvStatus = iota // a payload was received
	closed                     // the channel is closed and empty
	stopped                    // the run is stopping
)

// worker is the per-goroutine state of a runner's loop. Its send and recv
// try the plain channel operation first and fall back to a select on the
// context only when it would block: most hand-offs between buffered stages
// then cost a few nanoseconds and never touch the Done channel that every
// goroutine of the run shares. The moments it blocks are also the only
// moments it reads the clock, to account busy time.
type worker struct {
	done      <-chan struct{}
	stats     *stageStats
	clock     bool // account busy time: false for dispatchers, which run no user code
	busySince time.Time
}

func newWorker(ctx context.Context, st *stageStats) worker {
	return worker{done: ctx.Done(), stats: st, clock: true, busySince: time.Now()}
}

func newDispatcher(ctx context.Context, st *stageStats) worker {
	return worker{done: ctx.Done(), stats: st}
}

// isStopped polls the run's Done channel without blocking. A non-blocking
// receive on an open channel reads its state without taking its lock.
func (w *worker) isStopped() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// recv returns the next payload from in, unless the run is stopping or in
// is closed.
func (w *worker) recv(in <-chan Payload) (Payload, recvStatus) {
	if w.isStopped() {
		return nil, stopped
	}
	select {
	case p, ok := <-in:
		if !ok {
			return nil, closed
		}
		return p, received
	default:
		return w.recvSlow(in)
	}
}

func (w *worker) recvSlow(in <-chan Payload) (Payload, recvStatus) {
	w.pause()
	defer w.resume()
	select {
	case p, ok := <-in:
		if !ok {
			return nil, closed
		}
		return p, received
	case <-w.done:
		return nil, stopped
	}
}

// send hands p to out and reports whether it did; it fails only when the
// run is stopping, and then p still belongs to the caller.
func (w *worker) send(out chan<- Payload, p Payload) bool {
	select {
	case out <- p:
		return true
	default:
		return w.sendSlow(out, p)
	}
}

func (w *worker) sendSlow(out chan<- Payload, p Payload) bool {
	w.pause()
	defer w.resume()
	select {
	case out <- p:
		return true
	case <-w.done:
		return false
	}
}

// await waits for a token on ch and reports whether it got one before the
// run started stopping.
func (w *worker) await(ch <-chan struct{}) bool {
	w.pause()
	defer w.resume()
	select {
	case <-ch:
		return true
	case <-w.done:
		return false
	}
}

// pause ends a busy period; resume starts one.
func (w *worker) pause() {
	if w.clock {
		w.stats.busy.Add(int64(time.Since(w.busySince)))
	}
}

func (w *worker) resume() {
	if w.clock {
		w.busySince = time.Now()
	}
}

// finish accounts the last busy period; call it when the worker exits.
func (w *worker) finish() { w.pause() }

// drain marks processed every payload left in ch until ch is closed, and
// counts them as abandoned. The producer must close ch once it exits.
func drain(ch <-chan Payload, abandoned interface{ Add(uint64) uint64 }) {
	for p := range ch {
		if p != nil {
			p.MarkAsProcessed()
			abandoned.Add(1)
		}
	}
}

package pipeline

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
)

// errGoexit reports a stage runner that called runtime.Goexit, which unwinds
// like a panic that cannot be recovered.
var errGoexit = errors.New("stage runner called runtime.Goexit")

// runStage runs one stage and cleans up after it, whatever Run did: it
// reports a panic, closes the stage's output so the next component sees the
// end, and releases the payloads Run left in its input.
func runStage(ctx context.Context, stage StageRunner, params *workerParams, errCh chan error, bus *errorBus, abandoned *atomic.Uint64) {
	collected := make(chan struct{})
	go bus.collect(params.stage, errCh, collected)

	panicked := true
	defer func() {
		if panicked {
			if r := recover(); r != nil {
				bus.report(ComponentStage, params.stage, newPanicError(r))
			} else {
				bus.report(ComponentStage, params.stage, errGoexit)
			}
		}
		close(params.out)
		// Once the collector is done, every error the stage reported has
		// canceled the run, so a live context below means Run returned on
		// its own.
		close(errCh)
		<-collected
		if ctx.Err() == nil {
			if p, ok := <-params.in; ok {
				bus.report(ComponentStage, params.stage, ErrStageExitedEarly)
				if p != nil {
					p.MarkAsProcessed()
					abandoned.Add(1)
				}
			}
		}
		drain(params.in, abandoned)
	}()
	stage.Run(ctx, params)
	panicked = false
}

// runSource feeds the source's payloads to out until the source has no
// more or the run stops, then closes out.
func runSource(ctx context.Context, src Source, out chan<- Payload, bus *errorBus, rs *runStats) {
	defer close(out)
	defer func() {
		if r := recover(); r != nil {
			bus.report(ComponentSource, -1, newPanicError(r))
		}
	}()
	w := newDispatcher(ctx, nil)
	for {
		if w.isStopped() {
			return
		}
		if !src.Next(ctx) {
			break
		}
		p := src.Payload()
		if p == nil {
			bus.report(ComponentSource, -1, ErrNilPayload)
			return
		}
		rs.emitted.Add(1)
		if !w.send(out, p) {
			p.MarkAsProcessed()
			rs.abandoned.Add(1)
			return
		}
	}
	if err := src.Error(); err != nil {
		bus.report(ComponentSource, -1, err)
	}
}

// runSink hands every payload arriving on in to the sink and marks it
// processed. After a sink error or once the run stops it only marks them.
// It returns when in is closed, which happens once every stage has exited.
func runSink(ctx context.Context, sink Sink, in <-chan Payload, bus *errorBus, rs *runStats) {
	w := newDispatcher(ctx, nil)
	failed := false
	for p := range in {
		switch {
		case p == nil:
			bus.report(ComponentSink, -1, fmt.Errorf("from the last stage: %w", ErrNilPayload))
			failed = true
		case failed || w.isStopped():
			p.MarkAsProcessed()
			rs.abandoned.Add(1)
		default:
			err := safeConsume(ctx, sink, p)
			p.MarkAsProcessed()
			if err != nil {
				rs.sinkFailed.Add(1)
				bus.report(ComponentSink, -1, err)
				failed = true
				continue
			}
			rs.consumed.Add(1)
		}
	}
}

func safeConsume(ctx context.Context, sink Sink, p Payload) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = newPanicError(r)
		}
	}()
	return sink.Consume(ctx, p)
}

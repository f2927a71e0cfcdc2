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
		params.closeOutput()
		// Once the collector is done, every error the stage reported has
		// canceled the run, so a live context below means Run returned on
		// its own.
		close(errCh)
		<-collected
		if ctx.Err() == nil && params.releaseNextInput(abandoned) {
			bus.report(ComponentStage, params.stage, ErrStageExitedEarly)
		}
		params.drainInput(abandoned)
	}()
	stage.Run(ctx, params)
	panicked = false
}

// runSource feeds the source's payloads to out, or to link when the first
// component takes batches, until the source has no more or the run stops,
// then closes its output.
func runSource(ctx context.Context, src Source, out chan Payload, link *batchLink, bus *errorBus, rs *runStats) {
	ob := outbox{plain: out, link: link, abandoned: &rs.abandoned}
	defer ob.close()
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
		if !ob.put(&w, p) {
			return
		}
	}
	if err := src.Error(); err != nil {
		bus.report(ComponentSource, -1, err)
	}
}

// runSink hands every payload arriving on in, or on link when the last
// stage sends batches, to the sink and marks it processed. After a sink
// error or once the run stops it only marks them. It returns when its input
// is closed, which happens once every stage has exited.
func runSink(ctx context.Context, sink Sink, in <-chan Payload, link *batchLink, bus *errorBus, rs *runStats) {
	s := sinkRun{ctx: ctx, sink: sink, bus: bus, rs: rs, w: newDispatcher(ctx, nil)}
	if link == nil {
		for p := range in {
			s.consume(p)
		}
		return
	}
	// The sink reads until the stages close its input, whatever happens.
	forever := worker{}
	var batch []Payload
	for {
		var status recvStatus
		if batch, status = link.take(&forever, batch); status != received {
			return
		}
		for i, p := range batch {
			batch[i] = nil // the payload is no longer ours once consumed
			s.consume(p)
		}
	}
}

// sinkRun is the state of the sink's goroutine.
type sinkRun struct {
	ctx    context.Context
	sink   Sink
	bus    *errorBus
	rs     *runStats
	w      worker
	failed bool
}

func (s *sinkRun) consume(p Payload) {
	switch {
	case p == nil:
		s.bus.report(ComponentSink, -1, fmt.Errorf("from the last stage: %w", ErrNilPayload))
		s.failed = true
	case s.failed || s.w.isStopped():
		p.MarkAsProcessed()
		s.rs.abandoned.Add(1)
	default:
		err := safeConsume(s.ctx, s.sink, p)
		p.MarkAsProcessed()
		if err != nil {
			s.rs.sinkFailed.Add(1)
			s.bus.report(ComponentSink, -1, err)
			s.failed = true
			return
		}
		s.rs.consumed.Add(1)
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

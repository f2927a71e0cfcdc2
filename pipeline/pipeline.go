package pipeline

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// Pipeline moves payloads from a Source through its stages to a Sink. It can
// be run any number of times, also concurrently, if its stages allow it
// (the built-in runners do).
type Pipeline struct {
	stages []StageRunner
	opts   Options
	last   atomic.Pointer[runStats] // the counters of the latest run
}

// New returns a pipeline whose payloads traverse stages in order, with the
// default Options. A pipeline with no stages copies the source to the sink.
func New(stages ...StageRunner) *Pipeline {
	return NewWithOptions(Options{}, stages...)
}

// NewWithOptions is New with explicit options; invalid options make Process
// fail with ErrInvalidConfig.
func NewWithOptions(opts Options, stages ...StageRunner) *Pipeline {
	return &Pipeline{stages: stages, opts: opts}
}

// Stats returns the counters of the most recently started run: live while
// it runs, final once Process has returned. Before the first run every
// counter is zero.
func (p *Pipeline) Stats() Stats {
	if rs := p.last.Load(); rs != nil {
		return rs.snapshot()
	}
	return newRunStats(len(p.stages)).snapshot()
}

// Process runs the pipeline: it reads payloads from source until it has no
// more, passes each through the stages and hands the survivors to sink.
//
// It returns nil when every payload has been handled. The first error from
// the source, a stage or the sink cancels the run; Process then returns a
// *multierror.Error holding every error reported, first error first, each an
// *Error saying where it happened. Its message is one line (the only
// error, or "N errors: a; b"), and errors.Is and errors.As reach every
// error it holds, as with errors.Join, which the other packages of this
// module use to join errors. Errors that components report because
// the run was canceled (such as a processor returning ctx.Err()) are kept
// too. If ctx is done when the run ends and no component reported an error,
// Process returns an error wrapping ctx.Err(); either way errors.Is finds
// context.Canceled or context.DeadlineExceeded.
//
// In every case Process returns only after all goroutines it started have
// exited and, with the built-in runners, every payload that entered has been
// marked processed exactly once.
//
// Invalid configuration (nil source, sink or stage, or a built-in runner
// with bad arguments) is reported as ErrInvalidConfig before anything runs.
func (p *Pipeline) Process(ctx context.Context, source Source, sink Sink) error {
	buf, err := p.validate(source, sink)
	if err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	bus := newErrorBus(cancel)
	rs := newRunStats(len(p.stages))
	p.last.Store(rs)

	// Link i feeds stage i; the last one feeds the sink.
	chans, links := p.links(buf, rs)

	var wg sync.WaitGroup
	for i, stage := range p.stages {
		errCh := make(chan error)
		params := &workerParams{
			stage:   i,
			in:      chans[i],
			out:     chans[i+1],
			inLink:  links[i],
			outLink: links[i+1],
			errCh:   errCh,
			stats:   rs.stages[i],
			buf:     buf,
		}
		wg.Go(func() { runStage(runCtx, stage, params, errCh, bus, &rs.abandoned) })
	}
	wg.Go(func() { runSource(runCtx, source, chans[0], links[0], bus, rs) })
	last := len(p.stages)
	wg.Go(func() { runSink(runCtx, sink, chans[last], links[last], bus, rs) })
	wg.Wait()

	if err := bus.err(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("pipeline: run stopped: %w", err)
	}
	return nil
}

// links makes the connections of one run: for each position, a batchLink
// where it can be used, that is, where one goroutine consumes it and
// buffering is on, and a plain channel elsewhere.
func (p *Pipeline) links(buf int, rs *runStats) ([]chan Payload, []*batchLink) {
	chans := make([]chan Payload, len(p.stages)+1)
	links := make([]*batchLink, len(p.stages)+1)
	for i := range chans {
		if buf > 0 && p.batchedLink(i) {
			var out *atomic.Uint64 // the producing stage's; nil for the source
			if i > 0 {
				out = &rs.stages[i-1].out
			}
			links[i] = newBatchLink(buf, out)
		} else {
			chans[i] = make(chan Payload, buf)
		}
	}
	return chans, links
}

// batchedLink reports whether both ends of link i, into stage i or the
// sink, can use a batchLink.
func (p *Pipeline) batchedLink(i int) bool {
	if i > 0 {
		if _, ok := p.stages[i-1].(linkUser); !ok {
			return false
		}
	}
	if i == len(p.stages) {
		return true // the sink
	}
	to, ok := p.stages[i].(linkUser)
	return ok && to.batchesIn()
}

// validate checks the configuration and returns the channel capacity.
func (p *Pipeline) validate(source Source, sink Sink) (int, error) {
	buf, err := p.opts.bufferSize()
	if err != nil {
		return 0, err
	}
	if source == nil {
		return 0, fmt.Errorf("%w: nil source", ErrInvalidConfig)
	}
	if sink == nil {
		return 0, fmt.Errorf("%w: nil sink", ErrInvalidConfig)
	}
	for i, stage := range p.stages {
		if stage == nil {
			return 0, fmt.Errorf("%w: stage %d is nil", ErrInvalidConfig, i)
		}
		if v, ok := stage.(validator); ok {
			if err := v.validate(); err != nil {
				return 0, fmt.Errorf("stage %d: %w", i, err)
			}
		}
	}
	return buf, nil
}

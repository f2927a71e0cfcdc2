package pipeline

import "context"

// Payload is implemented by values that can be sent through a pipeline.
type Payload interface {
	// Clone returns a deep copy of the payload, so that several processors
	// can work on the same data concurrently (see Broadcast).
	Clone() Payload

	// MarkAsProcessed is called exactly once when the payload leaves the
	// pipeline: consumed by the sink, dropped by a processor, or abandoned
	// because of an error or cancellation. Pooled payloads return to their
	// pool here.
	MarkAsProcessed()
}

// Processor is implemented by the user-defined work of a stage.
type Processor interface {
	// Process operates on the input payload and returns the payload to
	// forward to the next stage. Returning a nil payload drops it: it goes
	// no further and is marked as processed. Returning a different payload
	// forwards that one, and the processor takes over the input (the
	// pipeline will not mark it). Returning an error fails the run; the
	// result is ignored and the input is marked as processed.
	//
	// Runners other than FIFO call Process from several goroutines at once.
	Process(context.Context, Payload) (Payload, error)
}

// ProcessorFunc adapts a function to the Processor interface.
type ProcessorFunc func(context.Context, Payload) (Payload, error)

// Process calls f(ctx, p).
func (f ProcessorFunc) Process(ctx context.Context, p Payload) (Payload, error) {
	return f(ctx, p)
}

// StageParams gives a StageRunner the channels of its position in the
// pipeline.
type StageParams interface {
	// StageIndex is the stage's position in the pipeline, from 0.
	StageIndex() int
	// Input delivers the payloads to process; it is closed when there are
	// no more.
	Input() <-chan Payload
	// Output receives the processed payloads for the next stage.
	Output() chan<- Payload
	// Error receives errors; the first one cancels the run. The pipeline
	// reads it until Run has returned, so sending on it never blocks for
	// long, and no error sent is lost. Errors need not say which stage
	// they come from: the pipeline wraps them in an *Error.
	Error() chan<- error
}

// StageRunner runs one stage: it reads payloads from params.Input until it is
// closed or ctx is done, processes them and writes results to
// params.Output. See the package documentation for the rules a custom
// runner must follow.
type StageRunner interface {
	Run(context.Context, StageParams)
}

// Source produces the payloads that enter a pipeline.
type Source interface {
	// Next advances to the next payload; it returns false when there are
	// none left or an error occurred. It may block waiting for data, but
	// must return once ctx is done, or Process cannot return either.
	Next(context.Context) bool
	// Payload returns the payload that Next advanced to; from then on the
	// pipeline owns it and marks it as processed when it leaves.
	Payload() Payload
	// Error returns the error that stopped the source, if any.
	Error() error
}

// Sink consumes the payloads that leave the last stage.
type Sink interface {
	// Consume receives a payload that has gone through every stage. The
	// pipeline marks it as processed when Consume returns, so a sink that
	// keeps it must keep a Clone. An error fails the run.
	Consume(context.Context, Payload) error
}

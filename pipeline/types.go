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
	// no further and is marked as processed.
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
	// Error receives errors; the first one cancels the run.
	Error() chan<- error
}

// StageRunner runs one stage: it reads payloads from params.Input until it is
// closed or ctx is done, processes them and writes results to
// params.Output.
type StageRunner interface {
	Run(context.Context, StageParams)
}

// Source produces the payloads that enter a pipeline.
type Source interface {
	// Next advances to the next payload; it returns false when there are
	// none left or an error occurred.
	Next(context.Context) bool
	// Payload returns the payload that Next advanced to.
	Payload() Payload
	// Error returns the error that stopped the source, if any.
	Error() error
}

// Sink consumes the payloads that leave the last stage.
type Sink interface {
	// Consume receives a payload that has gone through every stage.
	Consume(context.Context, Payload) error
}

package pipeline

import (
	"context"
	"fmt"
)

// DeadLetterSink receives the payloads a DeadLetter processor gives up on.
type DeadLetterSink interface {
	// ConsumeFailed receives a payload its processor failed on, and the
	// error. The payload is marked processed after it returns, so a sink
	// that keeps it must keep a Clone. An error from ConsumeFailed fails
	// the run.
	ConsumeFailed(ctx context.Context, p Payload, err error) error
}

// DeadLetterFunc adapts a function to the DeadLetterSink interface.
type DeadLetterFunc func(ctx context.Context, p Payload, err error) error

// ConsumeFailed calls f(ctx, p, err).
func (f DeadLetterFunc) ConsumeFailed(ctx context.Context, p Payload, err error) error {
	return f(ctx, p, err)
}

// DeadLetter returns a Processor for best-effort pipelines: when proc fails,
// the payload and the error go to dl and the payload is dropped, so the run
// goes on. Errors that only say the run is stopping (proc failed while ctx
// was done) are returned as they are, since the payload is not at fault.
// Combine with Retry, inside, to dead-letter only what retries cannot save.
//
// A nil proc or dl makes every call fail with ErrInvalidConfig.
func DeadLetter(proc Processor, dl DeadLetterSink) Processor {
	if proc == nil || dl == nil {
		err := fmt.Errorf("%w: dead letter: nil processor or sink", ErrInvalidConfig)
		return ProcessorFunc(func(context.Context, Payload) (Payload, error) { return nil, err })
	}
	return ProcessorFunc(func(ctx context.Context, p Payload) (Payload, error) {
		out, err := proc.Process(ctx, p)
		if err == nil || ctx.Err() != nil {
			return out, err
		}
		if dlErr := dl.ConsumeFailed(ctx, p, err); dlErr != nil {
			return nil, fmt.Errorf("dead-letter sink: %w (processing error: %w)", dlErr, err)
		}
		return nil, nil
	})
}

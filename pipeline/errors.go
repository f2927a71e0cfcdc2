package pipeline

import (
	"errors"
	"fmt"
	"runtime/debug"
)

var (
	// ErrInvalidConfig reports a pipeline or runner built with unusable
	// arguments, such as a nil processor or a worker count below one.
	// Process returns it before starting anything.
	ErrInvalidConfig = errors.New("pipeline: invalid configuration")

	// ErrNilPayload reports a nil payload where one is required: from
	// Source.Payload or from Payload.Clone.
	ErrNilPayload = errors.New("pipeline: nil payload")

	// ErrStageExitedEarly reports a stage runner whose Run returned while
	// its input still delivered payloads and the run was not stopped. The
	// payloads it left behind are marked processed.
	ErrStageExitedEarly = errors.New("pipeline: stage runner returned before its input was closed")

	// ErrRetriesExhausted is wrapped, together with the last error, by a
	// Retry processor that used all its attempts.
	ErrRetriesExhausted = errors.New("pipeline: retries exhausted")
)

// Component names the part of a pipeline an Error comes from.
type Component int

const (
	// ComponentSource is the pipeline's Source.
	ComponentSource Component = iota
	// ComponentStage is one of the pipeline's stages; Error.Stage says which.
	ComponentStage
	// ComponentSink is the pipeline's Sink.
	ComponentSink
)

// String returns "source", "stage" or "sink".
func (c Component) String() string {
	switch c {
	case ComponentSource:
		return "source"
	case ComponentStage:
		return "stage"
	case ComponentSink:
		return "sink"
	}
	return fmt.Sprintf("Component(%d)", int(c))
}

// Error wraps every error that Process collects with where it happened.
type Error struct {
	// Component is where the error happened.
	Component Component
	// Stage is the index of the stage, from 0, when Component is
	// ComponentStage, and -1 otherwise.
	Stage int
	// Err is the error reported by the component.
	Err error
}

// Error formats the location and the cause, e.g. "pipeline stage 2: boom".
func (e *Error) Error() string {
	if e.Component == ComponentStage {
		return fmt.Sprintf("pipeline stage %d: %v", e.Stage, e.Err)
	}
	return fmt.Sprintf("pipeline %s: %v", e.Component, e.Err)
}

// Unwrap returns the cause, so that errors.Is and errors.As see through Error.
func (e *Error) Unwrap() error { return e.Err }

// PanicError is the error a panic in user code (processor, clone, source or
// sink) is turned into, so that one faulty payload cannot crash the program.
type PanicError struct {
	// Value is the value passed to panic.
	Value any
	// Stack is the goroutine's stack trace at the time of the panic.
	Stack []byte
}

func newPanicError(v any) *PanicError {
	return &PanicError{Value: v, Stack: debug.Stack()}
}

// Error reports the panic value; the stack is in the Stack field.
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value when it is an error, such as a runtime
// error, so that errors.Is and errors.As can match it.
func (e *PanicError) Unwrap() error {
	if err, ok := e.Value.(error); ok {
		return err
	}
	return nil
}

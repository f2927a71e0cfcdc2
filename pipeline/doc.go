// Package pipeline runs payloads from a Source through a sequence of stages
// to a Sink, each stage on its own goroutines, connected by bounded channels.
//
// A pipeline is assembled from StageRunners, each wrapping user code (a
// Processor) with a dispatch strategy:
//
//   - FIFO: one payload at a time, order kept.
//   - FixedWorkerPool: a fixed number of workers, order not kept.
//   - DynamicWorkerPool: workers started on demand, at most a bound at once.
//   - OrderedWorkerPool: parallel workers, output in input order.
//   - Broadcast: every payload goes to several processors, each with its own
//     copy.
//   - Batch: one call of a BatchProcessor handles many payloads; BatchPool
//     has several batches in flight, ScatterGather hands each batch to
//     several BatchProcessors at once and joins them. A batch holds what
//     queued up, or waits up to a delay for more, optionally only while
//     payloads keep coming (FlushOnPause), within a weight
//     (FlushAtWeight) and until asked for (FlushOnSignal).
//
// Processors can be decorated with Retry (transient errors) and DeadLetter
// (failed payloads go to a side sink and the run continues).
//
// # Running
//
// (*Pipeline).Process is synchronous: it returns only after every goroutine
// it started has exited, whatever happened. The first error anywhere cancels
// the run; every error is collected and returned together in a
// *multierror.Error, each wrapped in an *Error that says where it happened
// (source, stage index, sink), so errors.Is and errors.As reach the cause.
// A panic in user code (processor, source, sink) becomes a *PanicError.
//
// # Payload ownership
//
// Every payload that leaves the pipeline is marked processed exactly once:
// by the pipeline after the sink consumed it, when a processor drops it by
// returning nil, or when it is abandoned because the run stopped (including
// payloads still waiting in channel buffers). A processor that returns a
// payload other than its input takes over the input: the pipeline will not
// mark it. This makes pooled payloads safe: none is lost, none returned to
// its pool twice.
//
// # Cost
//
// Hand-offs between goroutines dominate the cost of a pipeline whose stages
// do little work. Channels are buffered (Options.BufferSize, bounded because
// every buffered payload holds memory), and every send and receive first
// tries the plain channel operation, blocking in a select on the context
// only when it would wait.
//
// Where one goroutine reads a component's input (FIFO, Broadcast and its
// branches, OrderedWorkerPool, the sink) and the source or a built-in
// runner feeds it, payloads are handed over in batches: the producer
// queues each payload at once, and the consumer takes everything queued
// in one operation. Batches form only while the consumer is busy and
// nothing waits for one to fill, so a lone payload is not delayed and
// order is kept. FixedWorkerPool and DynamicWorkerPool read single
// payloads, so that their workers share the work; Batch reads a channel,
// which its delay needs; custom runners see plain channels.
//
// FIFO, FixedWorkerPool and Broadcast allocate nothing per payload in steady
// state.
//
// # Custom stage runners
//
// Users can write their own StageRunner. Its Run must read params.Input()
// until it is closed or ctx is done, must not return while goroutines it
// started still use the stage's channels, must mark processed every payload
// it abandons, and must not close any of the channels. Statistics are kept
// only by the built-in runners.
//
// # Dependencies
//
// The package is a product of its own, usable without the crawler: of this
// module it imports only internal/ctxtime, the module's one sleep (Retry's
// back-off, which ends with the run's context).
//
// Of other modules it imports github.com/hashicorp/go-multierror, in one
// place: a run's stage errors are joined into the *multierror.Error that
// Process returns (see Running). That type is Process's documented result:
// its Errors field lists every error of the run, first reported first, for
// a caller to walk or count, and this package gives it a one-line message.
// errors.Join, which the rest of the module uses to join errors, serves
// errors.Is and errors.As as well, but its result has no type for Process
// to document and a caller to assert, and its message takes one line per
// error.
package pipeline

package pipeline

import "fmt"

// DefaultBufferSize is the capacity of the channels between the components
// of a pipeline built with New. It is large enough that goroutines hand
// payloads over in bursts instead of one at a time, and small enough that
// the payloads it can hold (each one may own a page of memory or more) stay
// few.
const DefaultBufferSize = 32

// Unbuffered is the Options.BufferSize that connects components with
// unbuffered channels: every payload is handed over synchronously.
const Unbuffered = -1

// Options tunes a pipeline built with NewWithOptions. The zero value gives
// the defaults of New.
type Options struct {
	// BufferSize is the capacity of each channel between two components
	// (source, stages, sink) and of the internal channels of the built-in
	// runners that feed their own goroutines (Broadcast branches,
	// OrderedWorkerPool workers). Between built-in components that
	// exchange batches (see the package documentation, Cost) it is the
	// most payloads queued, and the consumer may hold as many more while
	// it works through the batch it took. 0 selects DefaultBufferSize;
	// Unbuffered selects unbuffered channels, and no batching. Other
	// negative values are invalid.
	BufferSize int
}

// bufferSize returns the channel capacity the options ask for.
func (o Options) bufferSize() (int, error) {
	switch {
	case o.BufferSize == 0:
		return DefaultBufferSize, nil
	case o.BufferSize == Unbuffered:
		return 0, nil
	case o.BufferSize < 0:
		return 0, fmt.Errorf("%w: BufferSize %d (want >= 0 or Unbuffered)", ErrInvalidConfig, o.BufferSize)
	}
	return o.BufferSize, nil
}

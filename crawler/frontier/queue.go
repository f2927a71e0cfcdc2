package frontier

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// MaxLevels is the largest number of priority levels a Queue supports. Pop
// blocks in a select statement with one case per level, which Go only
// allows for a fixed number of cases; crawlers need a handful of levels.
const MaxLevels = 8

// Sentinel errors; match them with errors.Is.
var (
	// ErrClosed is returned by Push after Close, and by Pop once the queue
	// is closed and drained.
	ErrClosed = errors.New("frontier: queue closed")
	// ErrFull is returned by TryPush when the item's level is at capacity.
	ErrFull = errors.New("frontier: level full")
	// ErrPriority is returned for a priority outside [0, Levels()).
	ErrPriority = errors.New("frontier: priority out of range")
)

// Queue is a bounded multi-level priority queue of T, safe for concurrent
// use by any number of producers and consumers.
type Queue[T any] struct {
	levels [MaxLevels]chan T // nil beyond n: a nil channel is never ready
	n      int

	closed     chan struct{} // closed by Close, to wake blocked callers
	closedFlag atomic.Bool   // set by Close before closing closed; cheaper to poll
	closeOnce  sync.Once
	// pushing counts Push calls between their closed check and their send,
	// so that Pop does not report ErrClosed while an accepted item is
	// still on its way into the queue.
	pushing atomic.Int64
}

// New returns a queue with levels priority levels (1..MaxLevels), each
// holding up to capacity items (at least 1) before Push blocks.
func New[T any](levels, capacity int) (*Queue[T], error) {
	if levels < 1 || levels > MaxLevels {
		return nil, fmt.Errorf("frontier: new queue with %d levels (want 1..%d): %w", levels, MaxLevels, ErrPriority)
	}
	if capacity < 1 {
		return nil, fmt.Errorf("frontier: new queue with capacity %d: capacity must be at least 1", capacity)
	}
	q := &Queue[T]{n: levels, closed: make(chan struct{})}
	for i := range levels {
		q.levels[i] = make(chan T, capacity)
	}
	return q, nil
}

// Levels returns the number of priority levels.
func (q *Queue[T]) Levels() int { return q.n }

// Len returns the number of queued items (a snapshot).
func (q *Queue[T]) Len() int {
	total := 0
	for i := range q.n {
		total += len(q.levels[i])
	}
	return total
}

// Push adds v at priority (0 is served first), blocking while that level is
// full. It returns ErrClosed if the queue is or gets closed, or the context's
// error if ctx ends first.
func (q *Queue[T]) Push(ctx context.Context, priority int, v T) error {
	if priority < 0 || priority >= q.n {
		return fmt.Errorf("frontier: push at priority %d of %d levels: %w", priority, q.n, ErrPriority)
	}
	q.pushing.Add(1)
	defer q.pushing.Add(-1)
	if q.closedFlag.Load() {
		return ErrClosed
	}
	select {
	case q.levels[priority] <- v:
		return nil
	default:
	}
	select {
	case q.levels[priority] <- v:
		return nil
	case <-q.closed:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("frontier: push: %w", ctx.Err())
	}
}

// TryPush adds v at priority without blocking; it returns ErrFull when the
// level is at capacity.
func (q *Queue[T]) TryPush(priority int, v T) error {
	if priority < 0 || priority >= q.n {
		return fmt.Errorf("frontier: push at priority %d of %d levels: %w", priority, q.n, ErrPriority)
	}
	q.pushing.Add(1)
	defer q.pushing.Add(-1)
	if q.closedFlag.Load() {
		return ErrClosed
	}
	select {
	case q.levels[priority] <- v:
		return nil
	default:
		return ErrFull
	}
}

// Pop removes and returns the oldest item of the highest non-empty priority,
// blocking until one is available. After Close it keeps returning the items
// still queued and then ErrClosed. If ctx ends first it returns ctx's error.
func (q *Queue[T]) Pop(ctx context.Context) (T, error) {
	for {
		if v, ok := q.scan(); ok {
			return v, nil
		}
		var v T
		select {
		case v = <-q.levels[0]:
			return v, nil
		case v = <-q.levels[1]:
			return v, nil
		case v = <-q.levels[2]:
			return v, nil
		case v = <-q.levels[3]:
			return v, nil
		case v = <-q.levels[4]:
			return v, nil
		case v = <-q.levels[5]:
			return v, nil
		case v = <-q.levels[6]:
			return v, nil
		case v = <-q.levels[7]:
			return v, nil
		case <-ctx.Done():
			return v, fmt.Errorf("frontier: pop: %w", ctx.Err())
		case <-q.closed:
			if v, ok := q.scan(); ok {
				return v, nil
			}
			if q.pushing.Load() == 0 {
				// Re-scan: a Push may have completed between the scan
				// above and the load.
				if v, ok := q.scan(); ok {
					return v, nil
				}
				return v, ErrClosed
			}
			// An accepted Push is mid-flight; its item is about to land.
			runtime.Gosched()
		}
	}
}

// scan takes the first item found from the highest priority down, without
// blocking.
func (q *Queue[T]) scan() (T, bool) {
	for i := range q.n {
		select {
		case v := <-q.levels[i]:
			return v, true
		default:
		}
	}
	var zero T
	return zero, false
}

// Close stops the queue accepting items and wakes blocked producers (with
// ErrClosed) and consumers (which drain what is queued, then get ErrClosed).
// It is safe to call more than once.
func (q *Queue[T]) Close() {
	q.closeOnce.Do(func() {
		q.closedFlag.Store(true)
		close(q.closed)
	})
}

package frontier

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func mustNew[T any](t *testing.T, levels, capacity int) *Queue[T] {
	t.Helper()
	q, err := New[T](levels, capacity)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestPriorityThenFIFO(t *testing.T) {
	q := mustNew[string](t, 3, 10)
	ctx := context.Background()
	for _, p := range []struct {
		prio int
		v    string
	}{{2, "c1"}, {1, "b1"}, {2, "c2"}, {0, "a1"}, {1, "b2"}, {0, "a2"}} {
		if err := q.Push(ctx, p.prio, p.v); err != nil {
			t.Fatal(err)
		}
	}
	if q.Len() != 6 {
		t.Fatalf("Len = %d, want 6", q.Len())
	}
	var got []string
	for range 6 {
		v, err := q.Pop(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	want := []string{"a1", "a2", "b1", "b2", "c1", "c2"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pop order = %v, want %v", got, want)
		}
	}
}

func TestPopBlocksUntilPush(t *testing.T) {
	q := mustNew[int](t, 2, 1)
	got := make(chan int)
	go func() {
		v, err := q.Pop(context.Background())
		if err != nil {
			t.Error(err)
		}
		got <- v
	}()
	select {
	case v := <-got:
		t.Fatalf("Pop returned %d from an empty queue", v)
	case <-time.After(20 * time.Millisecond):
	}
	if err := q.Push(context.Background(), 1, 42); err != nil {
		t.Fatal(err)
	}
	if v := <-got; v != 42 {
		t.Fatalf("Pop = %d, want 42", v)
	}
}

func TestContextCancellation(t *testing.T) {
	q := mustNew[int](t, 1, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := q.Pop(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Pop on empty queue with expiring ctx: %v", err)
	}
	if err := q.Push(context.Background(), 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := q.Push(ctx, 0, 2); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Push to full level with expired ctx: %v", err)
	}
	if err := q.TryPush(0, 2); !errors.Is(err, ErrFull) {
		t.Fatalf("TryPush to full level: %v", err)
	}
}

func TestCloseDrainsThenReportsClosed(t *testing.T) {
	q := mustNew[int](t, 2, 4)
	ctx := context.Background()
	_ = q.Push(ctx, 1, 1)
	_ = q.Push(ctx, 0, 0)
	q.Close()
	q.Close() // idempotent
	if err := q.Push(ctx, 0, 9); !errors.Is(err, ErrClosed) {
		t.Fatalf("Push after Close: %v", err)
	}
	if err := q.TryPush(0, 9); !errors.Is(err, ErrClosed) {
		t.Fatalf("TryPush after Close: %v", err)
	}
	for want := range 2 {
		v, err := q.Pop(ctx)
		if err != nil || v != want {
			t.Fatalf("Pop after Close = %d, %v; want %d", v, err, want)
		}
	}
	if _, err := q.Pop(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("Pop on closed, drained queue: %v", err)
	}
}

func TestCloseWakesBlockedCallers(t *testing.T) {
	q := mustNew[int](t, 1, 1)
	ctx := context.Background()
	_ = q.Push(ctx, 0, 1)
	pushErr := make(chan error)
	go func() { pushErr <- q.Push(ctx, 0, 2) }() // blocks: level full
	time.Sleep(10 * time.Millisecond)
	q.Close()
	if err := <-pushErr; !errors.Is(err, ErrClosed) {
		t.Fatalf("blocked Push after Close: %v", err)
	}

	q2 := mustNew[int](t, 1, 1)
	popErr := make(chan error)
	go func() { _, err := q2.Pop(ctx); popErr <- err }()
	time.Sleep(10 * time.Millisecond)
	q2.Close()
	if err := <-popErr; !errors.Is(err, ErrClosed) {
		t.Fatalf("blocked Pop after Close: %v", err)
	}
}

func TestBadArguments(t *testing.T) {
	for _, levels := range []int{0, -1, MaxLevels + 1} {
		if _, err := New[int](levels, 1); !errors.Is(err, ErrPriority) {
			t.Errorf("New(%d levels): %v", levels, err)
		}
	}
	if _, err := New[int](1, 0); err == nil {
		t.Error("New with capacity 0 succeeded")
	}
	q := mustNew[int](t, 2, 1)
	for _, p := range []int{-1, 2} {
		if err := q.Push(context.Background(), p, 0); !errors.Is(err, ErrPriority) {
			t.Errorf("Push at %d: %v", p, err)
		}
		if err := q.TryPush(p, 0); !errors.Is(err, ErrPriority) {
			t.Errorf("TryPush at %d: %v", p, err)
		}
	}
	if q.Levels() != 2 {
		t.Errorf("Levels = %d", q.Levels())
	}
}

// TestConcurrentExactlyOnce pushes from several producers into small levels
// (so producers block) while consumers pop, then closes: every item must be
// delivered exactly once and every consumer must end with ErrClosed.
func TestConcurrentExactlyOnce(t *testing.T) {
	const producers, consumers, perProducer = 4, 4, 2000
	q := mustNew[int](t, MaxLevels, 8)
	ctx := context.Background()

	var seen sync.Map
	var cwg sync.WaitGroup
	counts := make([]int, consumers)
	for c := range consumers {
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			for {
				v, err := q.Pop(ctx)
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				if _, dup := seen.LoadOrStore(v, true); dup {
					t.Errorf("item %d delivered twice", v)
				}
				counts[c]++
			}
		}()
	}
	var pwg sync.WaitGroup
	for p := range producers {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			for i := range perProducer {
				v := p*perProducer + i
				if err := q.Push(ctx, v%MaxLevels, v); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	pwg.Wait()
	q.Close()
	cwg.Wait()
	total := 0
	for _, n := range counts {
		total += n
	}
	if total != producers*perProducer {
		t.Fatalf("delivered %d items, want %d", total, producers*perProducer)
	}
}

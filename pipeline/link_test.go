package pipeline

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// idPayload is the smallest payload: the link never clones or marks.
type idPayload int

func (p idPayload) Clone() Payload { return p }
func (idPayload) MarkAsProcessed() {}
func ids(batch []Payload) (out []int) {
	for _, p := range batch {
		out = append(out, int(p.(idPayload)))
	}
	return out
}

func TestBatchLinkTakesEverythingQueuedInOrder(t *testing.T) {
	l := newBatchLink(8, nil)
	w := newDispatcher(context.Background(), nil)
	for i := range 5 {
		if !l.put(&w, idPayload(i)) {
			t.Fatal("put failed on a live run")
		}
	}
	batch, status := l.take(&w, nil)
	if status != received || !slices.Equal(ids(batch), []int{0, 1, 2, 3, 4}) {
		t.Fatalf("take = %v, %v; want the 5 payloads in order", ids(batch), status)
	}
	l.put(&w, idPayload(5))
	l.close()
	if batch, status = l.take(&w, batch); status != received || !slices.Equal(ids(batch), []int{5}) {
		t.Fatalf("take after close = %v, %v; want what was left first", ids(batch), status)
	}
	if _, status = l.take(&w, batch); status != closed {
		t.Fatalf("take on a closed, empty link = %v, want closed", status)
	}
}

// TestBatchLinkWakesEveryWaitingProducer fills a link and has several
// producers wait for room: one take must let them all through in turn,
// as long as room is left.
func TestBatchLinkWakesEveryWaitingProducer(t *testing.T) {
	const capacity, producers = 4, 3
	l := newBatchLink(capacity, nil)
	w := newDispatcher(context.Background(), nil)
	for i := range capacity {
		l.put(&w, idPayload(i))
	}
	var wg sync.WaitGroup
	for i := range producers {
		wg.Go(func() {
			pw := newDispatcher(context.Background(), nil)
			l.put(&pw, idPayload(capacity+i))
		})
	}
	// Wait until every producer is asleep on the full link.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		l.mu.Lock()
		n := l.producersWaiting
		l.mu.Unlock()
		if n == producers {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d producers waiting, want %d", n, producers)
		}
	}
	batch, _ := l.take(&w, nil)
	if len(batch) != capacity {
		t.Fatalf("took %d payloads, want %d", len(batch), capacity)
	}
	wg.Wait() // a producer left asleep would hang here
	batch, _ = l.take(&w, nil)
	if len(batch) != producers {
		t.Fatalf("took %d payloads from the producers, want %d", len(batch), producers)
	}
}

func TestBatchLinkStopsWaiting(t *testing.T) {
	l := newBatchLink(1, nil)
	ctx, cancel := context.WithCancel(context.Background())
	w := newDispatcher(ctx, nil)
	l.put(&w, idPayload(0))
	time.AfterFunc(10*time.Millisecond, cancel)
	if l.put(&w, idPayload(1)) {
		t.Fatal("put on a full link succeeded without a take")
	}
	l.take(&w, nil)
	if _, status := l.take(&w, nil); status != stopped {
		t.Fatalf("take on an empty link of a stopped run = %v, want stopped", status)
	}
}

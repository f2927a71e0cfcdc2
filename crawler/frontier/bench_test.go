package frontier

import (
	"context"
	"sync"
	"testing"
)

// The benchmarks move b.N items from one producer to one consumer goroutine
// through a plain buffered channel (the baseline) and through a Queue with 1
// and 4 levels, with the same total buffer, so their ns/op compare directly.

func BenchmarkBaselineChannel(b *testing.B) {
	b.ReportAllocs()
	ch := make(chan int, 256)
	done := make(chan struct{})
	go func() {
		for range ch {
		}
		close(done)
	}()
	for i := 0; b.Loop(); i++ {
		ch <- i
	}
	close(ch)
	<-done
}

func benchQueue(b *testing.B, levels int) {
	b.ReportAllocs()
	q, err := New[int](levels, 256/levels)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	done := make(chan struct{})
	go func() {
		for {
			if _, err := q.Pop(ctx); err != nil {
				break
			}
		}
		close(done)
	}()
	for i := 0; b.Loop(); i++ {
		if err := q.Push(ctx, i%levels, i); err != nil {
			b.Fatal(err)
		}
	}
	q.Close()
	<-done
}

func BenchmarkQueue1Level(b *testing.B)  { benchQueue(b, 1) }
func BenchmarkQueue4Levels(b *testing.B) { benchQueue(b, 4) }

// The Workers pair models the crawler: 4 consumers each spend about 2µs of
// CPU per item (far less than a real fetch), so the queue's few extra
// nanoseconds per item must not show in the throughput.

var (
	sink   uint64
	sinkMu sync.Mutex
)

func work() {
	x := uint64(1)
	for i := range 2000 {
		x = x*6364136223846793005 + uint64(i)
	}
	sinkMu.Lock()
	sink += x & 1 // keeps the loop from being optimised away
	sinkMu.Unlock()
}

func BenchmarkBaselineChannelWorkers(b *testing.B) {
	b.ReportAllocs()
	ch := make(chan int, 256)
	done := make(chan struct{})
	for range 4 {
		go func() {
			for range ch {
				work()
			}
			done <- struct{}{}
		}()
	}
	for i := 0; b.Loop(); i++ {
		ch <- i
	}
	close(ch)
	for range 4 {
		<-done
	}
}

func BenchmarkQueueWorkers(b *testing.B) {
	b.ReportAllocs()
	q, err := New[int](4, 64)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	done := make(chan struct{})
	for range 4 {
		go func() {
			for {
				if _, err := q.Pop(ctx); err != nil {
					break
				}
				work()
			}
			done <- struct{}{}
		}()
	}
	for i := 0; b.Loop(); i++ {
		if err := q.Push(ctx, i%4, i); err != nil {
			b.Fatal(err)
		}
	}
	q.Close()
	for range 4 {
		<-done
	}
}

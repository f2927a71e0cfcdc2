package politeness

import (
	"context"
	"strconv"
	"testing"
)

var hostNames = func() []string {
	h := make([]string, 100)
	for i := range h {
		h[i] = "host" + strconv.Itoa(i) + ".example"
	}
	return h
}()

// BenchmarkSchedulerPushNext is the per-item cost of Push, Next and Release
// over 100 hosts without delays; BenchmarkBaselineChannel is a buffered
// channel send and receive, the cost of an impolite queue.
func BenchmarkSchedulerPushNext(b *testing.B) {
	b.ReportAllocs()
	s, err := NewScheduler[int](Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		if err := s.Push(ctx, hostNames[i%len(hostNames)], i); err != nil {
			b.Fatal(err)
		}
		l, err := s.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		l.Start()
		l.Release()
	}
}

func BenchmarkBaselineChannel(b *testing.B) {
	b.ReportAllocs()
	ch := make(chan int, 1)
	for i := 0; b.Loop(); i++ {
		ch <- i
		<-ch
	}
}

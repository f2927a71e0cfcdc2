package safety

import (
	"runtime/metrics"
	"sync"
	"time"
)

// heapObjectsMetric is the memory occupied by live and not yet swept heap
// objects: what a crawler that buffers too much makes grow, unlike the
// heap's reserved or released spans.
const heapObjectsMetric = "/memory/classes/heap/objects:bytes"

// heapSampler samples heapObjectsMetric every interval in a goroutine of
// its own and keeps the maximum. Sampling, rather than reading the metric
// once at the end, is what catches a transient peak such as a body read in
// full and then dropped.
type heapSampler struct {
	stop chan struct{}
	wg   sync.WaitGroup
	peak uint64
	n    int
}

func startHeapSampler(interval time.Duration) *heapSampler {
	s := &heapSampler{stop: make(chan struct{})}
	s.wg.Go(func() {
		sample := []metrics.Sample{{Name: heapObjectsMetric}}
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			s.n++
			s.peak = max(s.peak, sample[0].Value.Uint64())
			select {
			case <-tick.C:
			case <-s.stop:
				return
			}
		}
	})
	return s
}

// Stop ends sampling and returns the peak in bytes and the number of samples.
func (s *heapSampler) Stop() (peak uint64, samples int) {
	close(s.stop)
	s.wg.Wait()
	return s.peak, s.n
}

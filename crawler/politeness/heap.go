package politeness

// delayHeap orders hosts waiting for their delay by next allowed start.
type delayHeap[T any] []*hostState[T]

func (h delayHeap[T]) Len() int           { return len(h) }
func (h delayHeap[T]) Less(i, j int) bool { return h[i].nextStart.Before(h[j].nextStart) }
func (h delayHeap[T]) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIdx, h[j].heapIdx = i, j
}

func (h *delayHeap[T]) Push(x any) {
	hs := x.(*hostState[T])
	hs.heapIdx = len(*h)
	*h = append(*h, hs)
}

func (h *delayHeap[T]) Pop() any {
	old := *h
	hs := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	hs.heapIdx = -1
	return hs
}

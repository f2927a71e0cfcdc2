package pipeline

import (
	"sync"
	"sync/atomic"
)

// A batchLink connects built-in components in place of a plain channel when
// a single goroutine consumes it. Between stages that do little work the
// cost of a pipeline is its hand-offs: a channel operation takes a lock on
// each side and, when the other side sleeps, a wake-up. On a batchLink a
// producer appends each payload to a shared queue at once (never keeping
// one back, so a lone payload travels as fast as over a channel), and the
// consumer takes everything queued in one operation. The more the consumer
// lags, the larger the batch it takes, and the fewer times either side
// sleeps.
//
// Any number of producers may put; one goroutine takes. Producers wait
// while capacity payloads are queued, so a link holds at most capacity
// queued payloads plus the batch its consumer is working through.
type batchLink struct {
	mu       sync.Mutex
	queue    []Payload // put, not yet taken, in order
	capacity int
	closed   bool
	// taken counts the payloads the consumer took, as the producing
	// stage's Out: once per batch and by one goroutine, where counting each
	// put would have the producers contend for the counter. nil when
	// nobody counts.
	taken *atomic.Uint64
	// The consumer sleeps on ready after setting consumerWaiting; the
	// producers sleep on room after counting themselves in
	// producersWaiting. Both channels hold one token: a token left by a
	// sleeper that gave up only causes a spurious wake-up, after which
	// the condition is checked again.
	consumerWaiting  bool
	producersWaiting int
	ready            chan struct{}
	room             chan struct{}
}

func newBatchLink(capacity int, taken *atomic.Uint64) *batchLink {
	return &batchLink{
		queue:    make([]Payload, 0, capacity),
		capacity: capacity,
		taken:    taken,
		ready:    make(chan struct{}, 1),
		room:     make(chan struct{}, 1),
	}
}

// put queues p, waiting while the link is full, and reports whether it
// did: it fails only when w's run is stopping, and then p still belongs to
// the caller.
func (l *batchLink) put(w *worker, p Payload) bool {
	l.mu.Lock()
	for len(l.queue) >= l.capacity {
		l.producersWaiting++
		l.mu.Unlock()
		if !w.await(l.room) {
			return false
		}
		l.mu.Lock()
	}
	l.queue = append(l.queue, p)
	wakeConsumer := l.consumerWaiting
	l.consumerWaiting = false
	// A producer woken when room was made passes the news on while room
	// is left, since one token wakes one producer.
	if len(l.queue) < l.capacity {
		l.wakeProducer()
	}
	l.mu.Unlock()
	if wakeConsumer {
		notify(l.ready)
	}
	return true
}

// take returns every payload queued, waiting for one if there are none,
// unless the link is closed and empty or w's run is stopping. spare, a
// batch take returned before and the caller is done with, becomes the
// queue's storage, so a link in steady state allocates nothing.
func (l *batchLink) take(w *worker, spare []Payload) ([]Payload, recvStatus) {
	if spare == nil {
		spare = make([]Payload, 0, l.capacity)
	}
	clear(spare)
	for {
		l.mu.Lock()
		if len(l.queue) > 0 {
			batch := l.queue
			l.queue = spare[:0]
			l.wakeProducer()
			l.mu.Unlock()
			if l.taken != nil {
				l.taken.Add(uint64(len(batch)))
			}
			return batch, received
		}
		if l.closed {
			l.mu.Unlock()
			return nil, closed
		}
		l.consumerWaiting = true
		l.mu.Unlock()
		if !w.await(l.ready) {
			return nil, stopped
		}
	}
}

// wakeProducer wakes one waiting producer, if any; l.mu is held. The
// count drops only if the token is sent: if one is pending already,
// whoever gets it wakes the next.
func (l *batchLink) wakeProducer() {
	if l.producersWaiting > 0 && notify(l.room) {
		l.producersWaiting--
	}
}

// close tells the consumer that no producer will put again.
func (l *batchLink) close() {
	l.mu.Lock()
	l.closed = true
	wake := l.consumerWaiting
	l.consumerWaiting = false
	l.mu.Unlock()
	if wake {
		notify(l.ready)
	}
}

// notify leaves a token on ch unless one is there already.
func notify(ch chan struct{}) bool {
	select {
	case ch <- struct{}{}:
		return true
	default:
		return false
	}
}

// drainBatches marks processed every payload left in l until its producers
// close it, and counts them as abandoned.
func drainBatches(l *batchLink, abandoned *atomic.Uint64) {
	w := worker{} // no done channel: wait for the producers to close l
	var batch []Payload
	for {
		var status recvStatus
		batch, status = l.take(&w, batch)
		if status != received {
			return
		}
		for _, p := range batch {
			p.MarkAsProcessed()
		}
		abandoned.Add(uint64(len(batch)))
	}
}

// outbox is a goroutine's sending end of a stage output: a plain channel or
// a batchLink. It counts in sent the payloads it sends over a channel,
// unless sent is nil (a batchLink counts them itself), and in abandoned
// those it releases because the run stops.
type outbox struct {
	plain     chan<- Payload
	link      *batchLink
	sent      *atomic.Uint64
	abandoned *atomic.Uint64
}

func newOutbox(plain chan<- Payload, link *batchLink, st *stageStats) outbox {
	return outbox{plain: plain, link: link, sent: &st.out, abandoned: &st.abandoned}
}

// put hands q on. It returns false when the run is stopping; q is then
// marked processed.
func (o *outbox) put(w *worker, q Payload) bool {
	if o.link != nil {
		if !o.link.put(w, q) {
			o.release(q)
			return false
		}
		return true
	}
	if !w.send(o.plain, q) {
		o.release(q)
		return false
	}
	if o.sent != nil {
		o.sent.Add(1)
	}
	return true
}

func (o *outbox) release(q Payload) {
	o.abandoned.Add(1)
	q.MarkAsProcessed()
}

// close tells the consumer that the producers are done; only the owner of
// an internal link, whose producers have all returned, calls it.
func (o *outbox) close() {
	if o.link != nil {
		o.link.close()
	} else {
		close(o.plain)
	}
}

// inbox is a goroutine's receiving end of a stage input: a plain channel or
// a batchLink, from which it takes whole batches. It counts in received the
// payloads it takes, weight each (a broadcast counts every copy), and in
// abandoned those of a batch it could not finish. received is nil where
// another goroutine counts.
type inbox struct {
	plain     <-chan Payload
	link      *batchLink
	batch     []Payload // the batch being worked through
	next      int
	weight    uint64
	received  *atomic.Uint64
	abandoned *atomic.Uint64
}

func newInbox(plain <-chan Payload, link *batchLink, st *stageStats) inbox {
	return inbox{plain: plain, link: link, weight: 1, received: &st.in, abandoned: &st.abandoned}
}

// recv returns the next payload, unless the run is stopping or the input
// is closed.
func (r *inbox) recv(w *worker) (Payload, recvStatus) {
	if r.link == nil {
		p, status := w.recv(r.plain)
		if status == received && r.received != nil {
			r.received.Add(r.weight)
		}
		return p, status
	}
	if w.isStopped() {
		return nil, stopped
	}
	if r.next == len(r.batch) {
		batch, status := r.link.take(w, r.batch)
		if status != received {
			r.batch, r.next = nil, 0
			return nil, status
		}
		if r.received != nil {
			r.received.Add(r.weight * uint64(len(batch)))
		}
		r.batch, r.next = batch, 0
	}
	p := r.batch[r.next]
	r.batch[r.next] = nil
	r.next++
	return p, received
}

// abandon marks processed the rest of the batch being worked through.
func (r *inbox) abandon() {
	rest := r.batch[r.next:]
	for _, p := range rest {
		p.MarkAsProcessed()
	}
	if r.abandoned != nil {
		r.abandoned.Add(r.weight * uint64(len(rest)))
	}
	clear(rest)
	r.next = len(r.batch)
}

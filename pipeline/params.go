package pipeline

import "sync/atomic"

// workerParams is the StageParams the pipeline gives each stage. Besides
// the channels it carries what the built-in runners need and the interface
// cannot express: the stage's counters, the configured buffer size, and
// the batched links that replace the plain channels between
// built-in components (inLink instead of in, outLink instead of out).
type workerParams struct {
	stage   int
	in      <-chan Payload
	out     chan<- Payload
	inLink  *batchLink
	outLink *batchLink
	errCh   chan<- error
	stats   *stageStats
	buf     int
}

func (p *workerParams) StageIndex() int        { return p.stage }
func (p *workerParams) Input() <-chan Payload  { return p.in }
func (p *workerParams) Output() chan<- Payload { return p.out }
func (p *workerParams) Error() chan<- error    { return p.errCh }

// closeOutput tells the next component that the stage has ended.
func (p *workerParams) closeOutput() {
	if p.outLink != nil {
		p.outLink.close()
	} else {
		close(p.out)
	}
}

// releaseNextInput takes what the input still delivers at once, if
// anything, marks it processed and reports whether there was some.
func (p *workerParams) releaseNextInput(abandoned *atomic.Uint64) bool {
	if p.inLink != nil {
		batch, status := p.inLink.take(&worker{}, nil)
		for _, q := range batch {
			q.MarkAsProcessed()
		}
		abandoned.Add(uint64(len(batch)))
		return status == received
	}
	q, ok := <-p.in
	if q != nil {
		q.MarkAsProcessed()
		abandoned.Add(1)
	}
	return ok
}

// drainInput releases every payload left in the input until the previous
// component closes it.
func (p *workerParams) drainInput(abandoned *atomic.Uint64) {
	if p.inLink != nil {
		drainBatches(p.inLink, abandoned)
	} else {
		drain(p.in, abandoned)
	}
}

// statsOf returns the counters of the stage params belong to. Runners run
// with params from elsewhere (a user calling Run directly) count into a
// private set nobody reads.
func statsOf(params StageParams) *stageStats {
	if wp, ok := params.(*workerParams); ok && wp.stats != nil {
		return wp.stats
	}
	return new(stageStats)
}

// inboxOf returns the receiving end of the stage input for one goroutine.
func inboxOf(params StageParams, st *stageStats) inbox {
	if wp, ok := params.(*workerParams); ok && wp.inLink != nil {
		return newInbox(nil, wp.inLink, st)
	}
	return newInbox(params.Input(), nil, st)
}

// outboxOf returns the sending end of the stage output for one goroutine.
func outboxOf(params StageParams, st *stageStats) outbox {
	if wp, ok := params.(*workerParams); ok && wp.outLink != nil {
		return newOutbox(nil, wp.outLink, st)
	}
	return newOutbox(params.Output(), nil, st)
}

// bufferOf returns the capacity runners give their internal channels.
func bufferOf(params StageParams) int {
	if wp, ok := params.(*workerParams); ok {
		return wp.buf
	}
	return DefaultBufferSize
}

// linkUser is implemented by the built-in runners, which can all send
// their output over a batchLink; batchesIn reports whether they can take
// their input from one too, which needs a single goroutine reading it (a
// pool spreads single payloads over its workers instead).
type linkUser interface {
	batchesIn() bool
}

// validator is implemented by the built-in runners, whose constructors
// cannot return an error: Process asks them before starting anything.
type validator interface {
	validate() error
}

// reportInvalid is what a misconfigured built-in runner does when it is run
// anyway (directly, not through Process): it reports why and returns.
func reportInvalid(params StageParams, err error) {
	params.Error() <- err
}

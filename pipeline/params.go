package pipeline

// workerParams is the StageParams the pipeline gives each stage. Besides
// the channels it carries what the built-in runners need and the interface
// cannot express: the stage's counters and the configured buffer size.
type workerParams struct {
	stage int
	in    <-chan Payload
	out   chan<- Payload
	errCh chan<- error
	stats *stageStats
	buf   int
}

func (p *workerParams) StageIndex() int        { return p.stage }
func (p *workerParams) Input() <-chan Payload  { return p.in }
func (p *workerParams) Output() chan<- Payload { return p.out }
func (p *workerParams) Error() chan<- error    { return p.errCh }

// statsOf returns the counters of the stage params belong to. Runners run
// with params from elsewhere (a user calling Run directly) count into a
// private set nobody reads.
func statsOf(params StageParams) *stageStats {
	if wp, ok := params.(*workerParams); ok && wp.stats != nil {
		return wp.stats
	}
	return new(stageStats)
}

// bufferOf returns the capacity runners give their internal channels.
func bufferOf(params StageParams) int {
	if wp, ok := params.(*workerParams); ok {
		return wp.buf
	}
	return DefaultBufferSize
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

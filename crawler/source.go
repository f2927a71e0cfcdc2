package crawler

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/pipeline"
)

// Source is a pipeline.Source that turns the links of a
// linkgraph.LinkIterator into tracked payloads: each page is reported once,
// through the report function, when its last copy leaves the pipeline.
type Source struct {
	it     linkgraph.LinkIterator
	report func(Outcome)
	ctx    context.Context // the pipeline's, from the latest Next
}

// NewSource returns a Source reading it. report, if not nil, receives every
// page's Outcome; it is called from the pipeline's goroutines, concurrently,
// and must be safe for that. The caller still owns it and closes it.
func NewSource(it linkgraph.LinkIterator, report func(Outcome)) *Source {
	return &Source{it: it, report: report}
}

// Next implements pipeline.Source.
func (s *Source) Next(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	s.ctx = ctx
	if it, ok := s.it.(ContextIterator); ok {
		return it.NextContext(ctx)
	}
	return s.it.Next()
}

// Payload implements pipeline.Source.
func (s *Source) Payload() pipeline.Payload {
	if r, ok := s.it.(ResumingIterator); ok {
		if p := r.Resumed(); p != nil {
			return p
		}
	}
	l := s.it.Link()
	p := NewPayload(l.ID, l.URL, l.RetrievedAt)
	p.ETag, p.LastModified = l.ETag, l.LastModified
	if m, ok := s.it.(ModifiedIterator); ok {
		p.ModifiedAt = m.ModifiedAt()
	}
	ctx := s.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	p.track = newTracker(ctx, s.report)
	return p
}

// Error implements pipeline.Source.
func (s *Source) Error() error { return s.it.Error() }

// Sink is a pipeline.Sink that counts the pages reaching the end of the
// pipeline. A page from a Source counts once however many copies of it
// arrive (a broadcast stage emits one per branch); an untracked payload
// counts every time.
type Sink struct {
	n atomic.Int64
}

// Consume implements pipeline.Sink.
func (s *Sink) Consume(_ context.Context, pp pipeline.Payload) error {
	p, err := asPayload(pp)
	if err != nil {
		return fmt.Errorf("crawler: sink: %w", err)
	}
	if p.track == nil || p.track.delivered.CompareAndSwap(false, true) {
		s.n.Add(1)
	}
	return nil
}

// Count returns the number of pages counted so far.
func (s *Sink) Count() int { return int(s.n.Load()) }

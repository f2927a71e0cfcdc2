package crawler

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/linksrus/linksrus/pipeline"
)

// Source is a pipeline.Source that hands out the pages of a Frontier as
// tracked payloads: each page is reported once, to the frontier (Done) and
// to the report function, when its last copy leaves the pipeline. A panic
// in either is recovered: the page's outcome is still counted, and the
// first panic is the Source's Error (as a *pipeline.PanicError).
type Source struct {
	f       Frontier
	hook    outcomeHook
	starved func()
	cur     *Payload
	ctx     context.Context // the pipeline's, from the latest Next
	err     error
}

// NewSource returns a Source handing out f's pages. report, if not nil,
// receives every page's Outcome after the frontier's Done; it is called
// from the pipeline's goroutines, concurrently, and must be safe for that.
// starved, if not nil, is what f's Next may call while it waits (see
// Frontier.Next).
func NewSource(f Frontier, report func(Outcome), starved func()) *Source {
	if starved == nil {
		starved = func() {}
	}
	s := &Source{f: f, starved: starved}
	s.hook.fn = func(o Outcome) {
		f.Done(o)
		if report != nil {
			report(o)
		}
	}
	return s
}

// Next implements pipeline.Source.
func (s *Source) Next(ctx context.Context) bool {
	if ctx.Err() != nil || s.err != nil {
		return false
	}
	s.ctx = ctx
	p, err := s.f.Next(ctx, s.starved)
	if err != nil {
		s.err = fmt.Errorf("crawler: frontier: %w", err)
		return false
	}
	s.cur = p
	return p != nil
}

// Payload implements pipeline.Source: a page parked before keeps the
// tracking it had; a new one is tracked from here on.
func (s *Source) Payload() pipeline.Payload {
	p := s.cur
	s.cur = nil
	if p.track == nil {
		ctx := s.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		p.track = newTracker(ctx, s.hook.call, s.f)
	}
	return p
}

// Error implements pipeline.Source: the frontier's error, or the first
// panic of its Done or of report. (A page reported after the pipeline
// last asked, as the last pages are, shows its panic here later.)
func (s *Source) Error() error { return errors.Join(s.err, s.hook.err()) }

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

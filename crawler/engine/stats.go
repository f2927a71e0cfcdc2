package engine

import (
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/linksrus/linksrus/crawler"
)

// Progress is a snapshot of a run.
type Progress struct {
	// Pages crawled, Errors (pages that should have been crawled and were
	// not: fetch errors, error statuses, redirect loops... (see
	// crawler.Reason.IsError), and a seed left out by any policy, see
	// SeedFailed), Skipped (by policy or limit: robots.txt, content type,
	// size...).
	Pages, Errors, Skipped int64
	// Unchanged counts the crawled pages (among Pages) the server answered
	// with 304 Not Modified: nothing downloaded, nothing parsed or stored
	// but their times.
	Unchanged int64
	// Rendered counts the crawled pages read from their rendered document
	// (Options.Render), RenderFailed those whose render failed (the page
	// crashed, the browser is gone...), crawled as served, and
	// RenderRefused the browser's requests the crawl refused for them.
	Rendered, RenderFailed, RenderRefused int64
	// Bytes of bodies read, and Links found on crawled pages.
	Bytes, Links int64
	// Queued links (in memory and spilled) and pages InFlight.
	Queued, InFlight int
	// Reasons counts every outcome and scope decision by its name
	// (crawler.Reason's, or "scope: ..." and "depth" for links found and
	// left out). A link out of scope counts once ("scope: rejected by
	// filter" aside: a filter sees the depth, so each decision counts), a
	// link too deep for the path it was found by each time.
	Reasons map[string]int64
	// Sitemaps is the number of sitemap files read (indexes included,
	// those cut short by an error too); SitemapURLs the URLs they listed
	// that are in scope (queued, unless queued or crawled already), and
	// SitemapSkipped those left out: invalid, outside the sitemap's
	// directory or the crawl's scope, or in an index nested too deep.
	// Sitemaps that could not be read are outcomes (ReasonSitemap).
	Sitemaps, SitemapURLs, SitemapSkipped int64
	// Elapsed since the run started.
	Elapsed time.Duration
	// Active is the time from the run's start to its last page handled
	// (an outcome): a run that ends by waiting for more work that never
	// comes (a shared crawl's Shared.Idle, a partition's Partition.Idle)
	// has Elapsed that much longer, and its pages went at Pages/Active.
	Active time.Duration
}

// runStats are the live counters of a run.
type runStats struct {
	start                                 time.Time
	pages                                 atomic.Int64
	unchanged                             atomic.Int64
	rendered, renderFailed, renderRefused atomic.Int64
	errors                                atomic.Int64
	skipped                               atomic.Int64
	bytes                                 atomic.Int64
	links                                 atomic.Int64

	sitemaps, sitemapURLs, sitemapSkipped atomic.Int64
	// lastOutcome is when the last outcome was recorded, since start (of
	// outcomes recorded at once, any one: they are microseconds apart).
	lastOutcome atomic.Int64

	mu      sync.Mutex
	reasons map[string]int64
}

func newRunStats() *runStats {
	return &runStats{start: time.Now(), reasons: make(map[string]int64)}
}

func (s *runStats) note(reason string) {
	s.mu.Lock()
	s.reasons[reason]++
	s.mu.Unlock()
}

// SeedFailed reports whether a seed with this outcome counts as an error:
// a page the caller asked for by name was not crawled. Policies that only
// skip a found link (a private address, robots.txt, the content type)
// fail a seed; a seed that is another seed's duplicate, that a processor
// dropped, or whose host went to another process of a shared crawl (which
// crawls it), was dealt with as asked.
func SeedFailed(r crawler.Reason) bool {
	switch r {
	case crawler.ReasonCrawled, crawler.ReasonDuplicate, crawler.ReasonDropped, crawler.ReasonWithdrawn:
		return false
	}
	return true
}

// record counts an outcome; seed says it is a seed's.
func (s *runStats) record(o crawler.Outcome, seed bool) {
	s.lastOutcome.Store(int64(time.Since(s.start)))
	s.bytes.Add(o.Bytes)
	switch {
	case o.Reason == crawler.ReasonCrawled:
		s.pages.Add(1)
		s.links.Add(int64(o.Links + o.NoFollowLinks))
		if o.Unchanged {
			s.unchanged.Add(1)
		}
		switch r := o.Render; {
		case r.Rendered:
			s.rendered.Add(1)
			s.renderRefused.Add(int64(r.Refused))
		case r.Err != nil:
			s.renderFailed.Add(1)
		}
	case o.Reason.IsError(), seed && SeedFailed(o.Reason):
		s.errors.Add(1)
	default:
		s.skipped.Add(1)
	}
	s.note(o.Reason.String())
}

func (s *runStats) snapshot() Progress {
	s.mu.Lock()
	reasons := maps.Clone(s.reasons)
	s.mu.Unlock()
	return Progress{
		Pages:     s.pages.Load(),
		Unchanged: s.unchanged.Load(),

		Rendered:      s.rendered.Load(),
		RenderFailed:  s.renderFailed.Load(),
		RenderRefused: s.renderRefused.Load(),

		Errors:  s.errors.Load(),
		Skipped: s.skipped.Load(),
		Bytes:   s.bytes.Load(),
		Links:   s.links.Load(),
		Reasons: reasons,

		Sitemaps:       s.sitemaps.Load(),
		SitemapURLs:    s.sitemapURLs.Load(),
		SitemapSkipped: s.sitemapSkipped.Load(),

		Elapsed: time.Since(s.start),
		Active:  time.Duration(s.lastOutcome.Load()),
	}
}

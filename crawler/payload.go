package crawler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/pipeline"
)

// Payload is a page on its way through the crawl pipeline. Each stage fills
// in its part; a stage may read everything earlier stages wrote.
//
// Payloads are recycled through a sync.Pool: get one from NewPayload (or a
// Source), and never keep a reference to it, or to its slices, after the
// pipeline marks it processed. A processor that needs the data later must
// copy it (strings may be kept: they are never reused).
type Payload struct {
	// Set by the source, from the link graph.
	LinkID      uuid.UUID
	URL         string
	RetrievedAt time.Time
	// ETag and LastModified are the validators of the page: from the graph
	// (its last retrieval's) until the fetch stage replaces them with the
	// response's. With them the fetch is a conditional request (see
	// Unchanged), and the graph stores the new ones with RetrievedAt.
	ETag         string
	LastModified string
	// ModifiedAt is when the page last changed by the site's word (a
	// sitemap's <lastmod>, as the Frontier knows it), zero if unknown. A page
	// retrieved after that is not requested at all when its graph could
	// take a conditional answer: it is Unchanged, as a 304 would have
	// said.
	ModifiedAt time.Time

	// Set by the fetch stage.

	// FinalURL is the URL the body came from: URL, unless the request was
	// redirected. Relative links are resolved against it.
	FinalURL string
	// StatusCode and ContentType are the response's.
	StatusCode  int
	ContentType string
	// Body is the page, decoded to UTF-8. Every stage can read it and none
	// consumes it; stages must not modify it, since later stages parse it
	// again. (In a Crawler's own pipeline with no Processors, which no
	// stage after the extraction reads it in, the extraction stage hands
	// it back for the next fetch; the stages from Stages keep it.)
	Body []byte
	// FetchedAt is when the response arrived.
	FetchedAt time.Time
	// Unchanged is set when the server answered the conditional request
	// (the page's validators from its last retrieval) with 304 Not
	// Modified: Body is empty, and the stores keep the page's links,
	// edges and text as they were; the graph refreshes the page's
	// retrieval time and the time of its edges. Processors of their own
	// that need the page's content must skip such pages.
	Unchanged bool

	// Set by the graph updater.

	// PageID is the ID of the link the page is stored under: LinkID, or
	// for a redirected page the link of FinalURL (the original URL then
	// becomes an alias of it, with an edge to it), so that a page reached
	// under two URLs is one page of the graph and one document of the
	// index. Zero without a graph updater.
	PageID uuid.UUID

	// Set by the link extraction stage.

	// Links are the distinct absolute http(s) URLs the page links to.
	Links []string
	// LinkTexts are the words of those links, LinkTexts[i] of Links[i]
	// (see LinkText): what the page says of the pages it links to, which
	// the text index keeps as their anchor text.
	LinkTexts []string
	// NoFollowLinks are links the page does not vouch for (rel="nofollow",
	// or a page-wide nofollow): they go into the graph without an edge.
	NoFollowLinks []string
	// NoIndex is set when the page (meta robots or X-Robots-Tag) asks not
	// to be indexed.
	NoIndex bool

	// Set by the text extraction stage.
	Title       string
	TextContent string
	// Headings is the text of the page's headings in TextContent, a line
	// each, which the index weighs as a field of their own.
	Headings string
	// Language is the language the page declares for its text, a BCP 47
	// tag: its <html lang>, else the first of the response's
	// Content-Language (set by the fetch stage, or an import), else "".
	Language string

	// aliasID is set by the graph updater for a redirected page: the ID
	// of URL's link, an alias of PageID's, for the indexer to record in
	// the text index too (the source may have given no LinkID).
	aliasID uuid.UUID

	outcome  fetchOutcome
	render   RenderReport // set by the render stage
	fs       fetchState   // how far the fetch has got, for a parked page
	noFollow bool         // the response asked for no edges (X-Robots-Tag)
	track    *tracker     // shared by the clones of a page; nil if untracked
}

// fetchOutcome is what the fetch stage learnt, kept for the page's Outcome.
type fetchOutcome struct {
	reason   Reason
	err      error
	bytes    int64
	duration time.Duration
}

// ErrUnexpectedPayload is returned by the crawler's stages and sink when
// they are given a payload that is not a *Payload.
var ErrUnexpectedPayload = errors.New("crawler: payload is not a *crawler.Payload")

func asPayload(pp pipeline.Payload) (*Payload, error) {
	p, ok := pp.(*Payload)
	if !ok || p == nil {
		return nil, fmt.Errorf("%w: %T", ErrUnexpectedPayload, pp)
	}
	return p, nil
}

var payloadPool = sync.Pool{New: func() any { return new(Payload) }}

// NewPayload returns a payload from the pool for a link, for callers who
// feed a pipeline from a source of their own. Payloads from NewPayload are
// not tracked: no Outcome is reported for them and a Sink counts every copy
// it consumes.
func NewPayload(linkID uuid.UUID, url string, retrievedAt time.Time) *Payload {
	p := payloadPool.Get().(*Payload)
	p.LinkID, p.URL, p.RetrievedAt = linkID, url, retrievedAt
	return p
}

// Clone implements pipeline.Payload: it returns a deep copy from the pool,
// leaving p untouched.
func (p *Payload) Clone() pipeline.Payload {
	c := payloadPool.Get().(*Payload)
	c.LinkID, c.URL, c.RetrievedAt = p.LinkID, p.URL, p.RetrievedAt
	c.ETag, c.LastModified, c.Unchanged = p.ETag, p.LastModified, p.Unchanged
	c.ModifiedAt = p.ModifiedAt
	c.FinalURL, c.StatusCode, c.ContentType = p.FinalURL, p.StatusCode, p.ContentType
	c.Body = append(c.Body[:0], p.Body...)
	c.FetchedAt = p.FetchedAt
	c.PageID, c.aliasID = p.PageID, p.aliasID
	c.Links = append(c.Links[:0], p.Links...)
	c.LinkTexts = append(c.LinkTexts[:0], p.LinkTexts...)
	c.NoFollowLinks = append(c.NoFollowLinks[:0], p.NoFollowLinks...)
	c.NoIndex, c.noFollow = p.NoIndex, p.noFollow
	c.Title, c.TextContent, c.Headings, c.Language = p.Title, p.TextContent, p.Headings, p.Language
	c.outcome, c.render = p.outcome, p.render
	if p.track != nil {
		p.track.refs.Add(1)
		c.track = p.track
	}
	return c
}

// MarkAsProcessed implements pipeline.Payload: it returns the payload to
// the pool, keeping the capacity of its slices. When it is the last copy of
// a tracked page, the page's Outcome is reported first.
func (p *Payload) MarkAsProcessed() {
	if t := p.track; t != nil {
		p.track = nil
		if t.refs.Add(-1) == 0 {
			t.finish(p)
		}
	}
	p.reset()
	payloadPool.Put(p)
}

// Abandon ends a page handed back through Frontier.Park without fetching
// it further: it is reported with ReasonWithdrawn and err, and is left due
// in the graph. A frontier calls it for pages it can no longer serve
// (their host went to another process), instead of MarkAsProcessed, which
// would report them dropped.
func (p *Payload) Abandon(err error) {
	p.skip(ReasonWithdrawn, err)
	p.MarkAsProcessed()
}

// bodyPool holds page buffers handed back before their payloads leave the
// pipeline (releaseBody), for the next fetches to read into.
var bodyPool sync.Pool

// releaseBody hands p's body buffer back for another page to be read into,
// once no stage will read it again. A page's text and links, which the
// stores want, are a fraction of its HTML; without this the pages waiting
// in the stores' batches would each hold their body too, and every pooled
// payload would keep the largest page it ever held.
func (p *Payload) releaseBody() {
	if cap(p.Body) > 0 {
		b := p.Body[:0]
		bodyPool.Put(&b)
	}
	p.Body = nil
}

// bodyBuffer returns an empty buffer to read p's body into: its own, or one
// another page released.
func (p *Payload) bodyBuffer() []byte {
	if cap(p.Body) == 0 {
		if b, ok := bodyPool.Get().(*[]byte); ok {
			return (*b)[:0]
		}
	}
	return p.Body[:0]
}

func (p *Payload) reset() {
	clear(p.Links) // let the strings be collected while the slice waits in the pool
	clear(p.LinkTexts)
	clear(p.NoFollowLinks)
	*p = Payload{
		Body:          p.Body[:0],
		Links:         p.Links[:0],
		LinkTexts:     p.LinkTexts[:0],
		NoFollowLinks: p.NoFollowLinks[:0],
	}
}

// LinkText returns the words of the page's link to Links[i], "" when it
// has none (an image without alt text) or when a source of its own filled
// in Links without LinkTexts.
func (p *Payload) LinkText(i int) string {
	if i < 0 || i >= len(p.LinkTexts) {
		return ""
	}
	return p.LinkTexts[i]
}

// skip records why the payload goes no further; the stage then drops it.
func (p *Payload) skip(reason Reason, err error) {
	p.outcome.reason, p.outcome.err = reason, err
}

// tracker follows one page and its clones through a crawl: the page is
// counted when its first copy reaches the sink and reported when its last
// copy leaves the pipeline.
type tracker struct {
	refs      atomic.Int32
	delivered atomic.Bool
	ctx       context.Context
	report    func(Outcome)
	// frontier is the Frontier the page came from, which its fetch and
	// its storing ask (see Payload.frontier).
	frontier Frontier
}

var trackerPool = sync.Pool{New: func() any { return new(tracker) }}

func newTracker(ctx context.Context, report func(Outcome), f Frontier) *tracker {
	t := trackerPool.Get().(*tracker)
	t.refs.Store(1)
	t.ctx, t.report, t.frontier = ctx, report, f
	return t
}

// frontier returns the Frontier the page came from through a Source; nil
// for a page from NewPayload outside one, whose requests then start at
// once and whose retries wait in the fetch worker (there is no frontier to
// park it with).
func (p *Payload) frontier() Frontier {
	if p.track == nil {
		return nil
	}
	return p.track.frontier
}

// finish reports the page's outcome from its last copy, last.
func (t *tracker) finish(last *Payload) {
	if t.report != nil {
		t.report(t.outcome(last))
	}
	t.delivered.Store(false)
	t.ctx, t.report, t.frontier = nil, nil, nil
	trackerPool.Put(t)
}

func (t *tracker) outcome(p *Payload) Outcome {
	o := Outcome{
		LinkID:        p.LinkID,
		URL:           p.URL,
		FinalURL:      p.FinalURL,
		Reason:        p.outcome.reason,
		Err:           p.outcome.err,
		StatusCode:    p.StatusCode,
		ContentType:   p.ContentType,
		Bytes:         p.outcome.bytes,
		Duration:      p.outcome.duration,
		Links:         len(p.Links),
		NoFollowLinks: len(p.NoFollowLinks),
		NoIndex:       p.NoIndex,
		Unchanged:     p.Unchanged,
		Render:        p.render,
	}
	switch {
	case t.delivered.Load():
		o.Reason, o.Err = ReasonCrawled, nil
	case o.Reason != ReasonCrawled:
		// A stage recorded why it dropped the page.
	case t.ctx != nil && t.ctx.Err() != nil:
		o.Reason, o.Err = ReasonCanceled, context.Cause(t.ctx)
	default:
		o.Reason = ReasonDropped
	}
	return o
}

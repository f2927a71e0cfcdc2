package crawler

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler/urlnorm"
	"github.com/linksrus/linksrus/pipeline"
)

// FetchedPage is a response fetched earlier, from an archive (see
// Crawler.Import; WARCPages makes them of WARC files' records), with its
// body as the server sent it.
type FetchedPage struct {
	// URL is the URL requested.
	URL        string
	StatusCode int
	Header     http.Header
	// Body is the body as sent, with its Content-Encoding (gzip is
	// decoded). Import copies what it keeps: the iterator may reuse it.
	Body []byte
	// Truncated is set when Body is not the whole body.
	Truncated bool
	// FetchedAt is when the response arrived; the page's retrieval time.
	FetchedAt time.Time
}

// Import runs pages fetched earlier through the stages that follow the
// fetch (link and text extraction, the graph updater, the indexer, the
// processors) without a request: the pipeline reused to rebuild the stores
// from an archive. A page goes through the checks the Fetcher makes on a
// response (2xx status, HTML, FetchOptions.MaxBodyBytes decoded, charset), and
// the skipped ones are reported through Config.OnOutcome as in a crawl.
//
// Redirects are followed within the archive: a 3xx page whose target comes
// later is stored as the crawl stores a redirected page, the URL first
// requested becoming an alias of the page's final URL. This needs the hops
// of a chain in the order they were fetched, as a Recorder gets them; a
// redirect whose target never comes is dropped, as a crawl drops a
// redirect to a page it skips.
//
// An error of the iterator ends the import as the end of the pages would:
// the pages before it are finished (stored, or skipped for what they are),
// and Import returns their count with the error, so that an archive
// damaged in the middle imports the same pages every time. To stop an
// import and keep what it took, stop the iterator (cancel the context
// warc.ReadDir reads with, say, under WARCPages); cancelling ctx stops at
// once, abandoning the pages in flight (reported with ReasonCanceled,
// possibly stored in part, not counted).
func (c *Crawler) Import(ctx context.Context, pages iter.Seq2[*FetchedPage, error]) (int, error) {
	if pages == nil {
		return 0, fmt.Errorf("%w: nil page iterator", ErrInvalidConfig)
	}
	next, stop := iter.Pull2(pages)
	defer stop()
	sink := new(Sink)
	var hook outcomeHook
	report := c.cfg.OnOutcome
	if report != nil {
		hook.fn = report
		report = hook.call
	}
	src := &importSource{next: next, report: report, maxBody: c.cfg.MaxBodyBytes, pending: map[string][]string{}}
	// The fetch stage's place is taken by the source: a fresh pipeline of
	// the other stages.
	err := pipeline.New(afterFetch(c.cfg, true, nil)...).Process(ctx, src, sink)
	err = errors.Join(src.err, err, hook.err())
	if err != nil {
		return sink.Count(), fmt.Errorf("crawler: import: %w", err)
	}
	return sink.Count(), nil
}

// importSource is the pipeline.Source of Import: it turns archived
// responses into the payloads the fetch stage would have made of them.
type importSource struct {
	next    func() (*FetchedPage, error, bool)
	report  func(Outcome)
	maxBody int64
	// pending maps the canonical target of each redirect not yet reached
	// to the URLs first requested that led to it; at most maxPending
	// targets, so that an archive of endless redirects cannot fill memory.
	pending map[string][]string
	ready   []*Payload // payloads of the latest page, one per origin
	cur     *Payload
	// err is the iterator's error. The pipeline does not get it (see
	// Error): a source error would cancel the run, abandoning the pages
	// read before it wherever they happen to be.
	err error
}

// Next implements pipeline.Source.
func (s *importSource) Next(ctx context.Context) bool {
	for len(s.ready) == 0 {
		if ctx.Err() != nil {
			return false
		}
		page, err, ok := s.next()
		if !ok {
			return false
		}
		if err != nil {
			s.err = err
			return false
		}
		if page != nil {
			s.take(ctx, page)
		}
	}
	s.cur, s.ready = s.ready[0], s.ready[1:]
	return true
}

// Payload implements pipeline.Source.
func (s *importSource) Payload() pipeline.Payload { return s.cur }

// Error implements pipeline.Source: nil, the iterator's error ending the
// input as its end does (Import returns it once the run is over).
func (s *importSource) Error() error { return nil }

// maxPending bounds importSource.pending: beyond it, a redirect whose
// target has not come yet is imported without its alias.
const maxPending = 1 << 20

// take turns page into payloads for s.ready, or notes the redirect it is,
// or reports it skipped.
func (s *importSource) take(ctx context.Context, page *FetchedPage) {
	if u, err := url.Parse(page.URL); err == nil && u.Path == "/robots.txt" {
		// Archived with the crawl's own requests, never a page of it
		// (however a site serves it).
		return
	}
	key := canonical(page.URL)
	origins := s.pending[key]
	delete(s.pending, key)
	if len(origins) == 0 {
		origins = []string{page.URL}
	}
	if loc := redirectLocation(&http.Response{StatusCode: page.StatusCode, Header: page.Header}); loc != "" {
		if next, err := resolveRedirect(page.URL, loc); err == nil {
			k := canonical(next)
			if _, ok := s.pending[k]; ok || len(s.pending) < maxPending {
				s.pending[k] = append(s.pending[k], origins...)
			}
			return
		}
	}
	for _, origin := range origins {
		p := NewPayload(uuid.Nil, origin, time.Time{}) // no link ID: the graph updater goes by URL
		p.track = newTracker(ctx, s.report, nil)
		if !p.fromArchive(page, s.maxBody) {
			p.MarkAsProcessed() // reported skipped
			continue
		}
		s.ready = append(s.ready, p)
	}
}

// resolveRedirect resolves a Location against the URL that answered it,
// as the Fetcher does (see nextHop).
func resolveRedirect(from, loc string) (string, error) {
	return urlnorm.Resolve(from, loc, urlnorm.Options{})
}

// fromArchive fills p from an archived response, making the checks the
// Fetcher makes on a response (see fetch). It reports false, with the
// reason recorded, if the page goes no further.
func (p *Payload) fromArchive(page *FetchedPage, maxBody int64) bool {
	p.FinalURL = page.URL
	p.FetchedAt = page.FetchedAt
	p.StatusCode = page.StatusCode
	p.ContentType = page.Header.Get("Content-Type")
	p.Language = contentLanguage(page.Header)
	p.outcome.bytes = int64(len(page.Body))
	switch {
	case page.StatusCode < 200 || page.StatusCode > 299:
		p.skip(ReasonHTTPStatus, nil)
		return false
	case p.ContentType != "" && !isHTML(p.ContentType):
		p.skip(ReasonContentType, nil)
		return false
	case page.Truncated:
		p.skip(ReasonTooLarge, errors.New("crawler: archived body is truncated"))
		return false
	}
	p.NoIndex, p.noFollow = robotsDirectives(page.Header.Values("X-Robots-Tag"))
	// Kept as the crawl keeps them, so that the first crawl after an
	// import asks with conditional requests.
	p.ETag, _ = validator(page.Header, "ETag")
	p.LastModified, _ = validator(page.Header, "Last-Modified")
	body, err := decodeContent(page.Header.Get("Content-Encoding"), page.Body, maxBody+1)
	if err != nil {
		p.skip(ReasonFetchError, fmt.Errorf("crawler: decode body: %w", err))
		return false
	}
	p.Body = append(p.bodyBuffer(), body...)
	return p.acceptBody(maxBody)
}

package engine

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/scope"
	"github.com/linksrus/linksrus/crawler/sitemap"
	"github.com/linksrus/linksrus/crawler/urlnorm"
	"github.com/linksrus/linksrus/linkgraph"
)

// Bounds of the sitemaps read for one host in a run.
const (
	// sitemapMaxFiles is the most sitemap files (indexes included) read
	// per host: an index may list 50,000 sitemaps, which no crawl wants
	// all of. Index entries beyond it count as skipped URLs.
	sitemapMaxFiles = 500
	// sitemapMaxNesting is how deep indexes may nest: the protocol allows
	// none (an index lists sitemaps), sites sometimes nest one level.
	sitemapMaxNesting = 2
	// sitemapMaxRedirects is the most redirects followed to a sitemap,
	// each on the host itself.
	sitemapMaxRedirects = 5
	// sitemapParallel is the most sitemaps a run parses at once: each may
	// take up to sitemap.MaxBytes of XML through the decoder.
	sitemapParallel = 4
	// sitemapBatch is how many listed URLs are stored at once.
	sitemapBatch = 256
	// sitemapDepth is the depth of a page a sitemap lists: one hop from
	// the crawl's start, as if the host's root linked to it.
	sitemapDepth = 1
)

// sitemapReader reads the sitemaps of every host a run queues links for,
// once per host per run: the Sitemap lines of the host's robots.txt (once
// it is known; not fetched at all with IgnoreRobots) and /sitemap.xml,
// and the sitemaps their indexes list. Its requests go through the host
// scheduler (hostFetcher), robots.txt applies to them, and the URLs they
// list that are in scope join the frontier, with their lastmod. A file
// that cannot be read is reported as an outcome with ReasonSitemap, and
// the crawl goes on.
type sitemapReader struct {
	*hostFetcher
	run    *Run
	robots *robotsTable // nil: robots.txt ignored
	sem    chan struct{}

	mu    sync.Mutex
	hosts map[string]bool // true while being read
}

func newSitemapReader(hf *hostFetcher, run *Run, rt *robotsTable) *sitemapReader {
	return &sitemapReader{hostFetcher: hf, run: run, robots: rt, sem: make(chan struct{}, sitemapParallel), hosts: make(map[string]bool)}
}

// start starts reading the sitemaps of rawURL's host (the scheduler's
// host key) unless it was done in this run; it reports whether it did.
// It never blocks: the frontier calls it with its lock held, when it
// hands out the host's first page, so that the page the crawl came for
// takes the host's first slot (and robots.txt is known by then).
func (s *sitemapReader) start(rawURL, host string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.hosts[host]; ok {
		return false
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return false
	}
	s.hosts[host] = true
	root := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}
	s.spawn(func() {
		defer s.run.frontier.sitemapsDone()
		withdrawn := s.read(root)
		s.mu.Lock()
		s.hosts[host] = false
		if withdrawn {
			// Read again when the host's next page is handed out here.
			delete(s.hosts, host)
		}
		s.mu.Unlock()
	})
	return true
}

// busy reports whether host's sitemaps are being read.
func (s *sitemapReader) busy(host string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hosts[host]
}

// sitemapJob is one sitemap file to read.
type sitemapJob struct {
	u *url.URL
	// nesting is 0 for the host's own sitemaps, n for those an index of
	// nesting n-1 lists.
	nesting int
	// fromRobots: named in the host's robots.txt, so it may list any URL
	// of the host; implicit: /sitemap.xml, tried without being named, so
	// that its absence is no news.
	fromRobots, implicit bool
}

// read reads the sitemaps of the host of root ("scheme://host/"). It
// reports whether it stopped because the host was withdrawn from this
// process (crawler.ErrWithdrawn): nothing failed, and it is not reported.
func (s *sitemapReader) read(root *url.URL) (withdrawn bool) {
	var allowed func(*url.URL) bool
	var jobs []sitemapJob
	if s.robots != nil {
		e, err := s.robots.wait(s.ctx, root)
		if err != nil || e.err != nil {
			// The run ends, the host was withdrawn, or it is unreachable
			// (its pages say so).
			return errors.Is(err, crawler.ErrWithdrawn)
		}
		allowed = e.rules.AllowedURL
		for _, loc := range e.rules.Sitemaps() {
			u, err := root.Parse(loc)
			if err != nil {
				s.report(loc, crawler.ReasonSitemap, fmt.Errorf("robots.txt Sitemap line: %w", err))
				continue
			}
			jobs = append(jobs, sitemapJob{u: u, fromRobots: true})
		}
	}
	jobs = append(jobs, sitemapJob{u: root.ResolveReference(&url.URL{Path: "/sitemap.xml"}), implicit: true})
	seen := make(map[string]bool)
	for files := 0; len(jobs) > 0 && s.ctx.Err() == nil; {
		j := jobs[0]
		jobs = jobs[1:]
		key := j.u.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		if files >= sitemapMaxFiles {
			s.run.stats.sitemapSkipped.Add(1)
			continue
		}
		files++
		switch {
		case j.u.Scheme != "http" && j.u.Scheme != "https" || !strings.EqualFold(j.u.Host, root.Host):
			// Its requests would go to another host, under that
			// host's robots.txt and politeness: not followed.
			s.report(key, crawler.ReasonSitemap, fmt.Errorf("sitemap not on %s", root.Host))
			continue
		case allowed != nil && !allowed(j.u):
			s.report(key, crawler.ReasonRobots, errors.New("sitemap disallowed by robots.txt"))
			continue
		}
		// Jobs beyond the file limit would never be read: an index
		// lists no more than there is room for, so that memory is bounded
		// by the limit rather than by 50,000 entries an index.
		more, err := s.readOne(j, sitemapMaxFiles-files-len(jobs), allowed)
		if errors.Is(err, crawler.ErrWithdrawn) {
			return true
		}
		if err != nil {
			if !(j.implicit && errors.Is(err, errNoSitemap)) && s.ctx.Err() == nil {
				s.report(key, crawler.ReasonSitemap, err)
			}
		}
		jobs = append(jobs, more...)
	}
	return false
}

// errNoSitemap is the answer to an implicit /sitemap.xml that the host
// does not have: not found, or a page or anything else whose root is not
// a sitemap's (a soft 404). A file named as a sitemap is reported instead.
var errNoSitemap = errors.New("no sitemap")

// readOne fetches and parses one sitemap, queueing the URLs it lists; it
// returns the sitemaps an index lists. URLs read before an error stay
// queued.
func (s *sitemapReader) readOne(j sitemapJob, room int, allowed func(*url.URL) bool) ([]sitemapJob, error) {
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	case <-s.ctx.Done():
		return nil, s.ctx.Err()
	}
	res, loc, err := s.get(j.u, allowed)
	if err != nil {
		if j.implicit && errors.Is(err, errNoSitemap) {
			return nil, errNoSitemap
		}
		return nil, fmt.Errorf("fetch sitemap: %w", err)
	}
	if j.implicit && isHTML(res.Header.Get("Content-Type")) {
		discardBody(res.Body)
		return nil, errNoSitemap
	}
	var more []sitemapJob
	q := sitemapQueue{s: s}
	r, err := sitemap.Parse(res.Body, sitemap.Options{Location: loc, AnyPath: j.fromRobots}, func(k sitemap.Kind, e sitemap.Entry) error {
		if k == sitemap.Index {
			if j.nesting >= sitemapMaxNesting || len(more) >= room {
				s.run.stats.sitemapSkipped.Add(1)
				return nil
			}
			u, err := url.Parse(e.Loc)
			if err == nil {
				more = append(more, sitemapJob{u: u, nesting: j.nesting + 1})
			}
			return nil
		}
		return q.add(e)
	})
	// The host's slot is freed before the listed URLs are stored: a slow
	// graph must not hold the host's requests up (nor run the sitemap's
	// request into its timeout). A file lists at most 50,000 of them.
	discardBody(res.Body)
	if qerr := q.flush(); err == nil {
		err = qerr
	}
	if j.implicit && errors.Is(err, sitemap.ErrNotSitemap) {
		// A page, an empty answer: the host has no sitemap there.
		return nil, errNoSitemap
	}
	s.run.stats.sitemaps.Add(1)
	s.run.stats.sitemapSkipped.Add(int64(r.Skipped))
	if err != nil {
		return more, fmt.Errorf("read sitemap: %w", err)
	}
	return more, nil
}

// get sends the GET of a sitemap through the host's scheduler, following
// redirects that stay on the host and that robots.txt allows (allowed, if
// not nil), and returns a 2xx response and the URL that gave it.
func (s *sitemapReader) get(u *url.URL, allowed func(*url.URL) bool) (*http.Response, *url.URL, error) {
	get := s.getterFor(u.Host)
	o := s.run.opts
	get.decorate = o.DecorateRequest
	target := u
	for hop := 0; ; hop++ {
		req, err := http.NewRequestWithContext(s.ctx, http.MethodGet, target.String(), nil)
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("User-Agent", o.UserAgent)
		// Asked for explicitly, so the transport hands the body over as
		// sent and Parse undoes the gzip itself: a sitemap's limit is on
		// its uncompressed size, which Parse enforces as it reads.
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := get.Do(req)
		if err != nil {
			return nil, nil, err
		}
		switch code := res.StatusCode; {
		case code >= 200 && code < 300:
			return res, target, nil
		case code >= 300 && code < 400 && res.Header.Get("Location") != "":
			discardBody(res.Body)
			next, err := target.Parse(res.Header.Get("Location"))
			if err != nil || hop >= sitemapMaxRedirects || !strings.EqualFold(next.Host, u.Host) ||
				(next.Scheme != "http" && next.Scheme != "https") {
				return nil, nil, fmt.Errorf("%s redirects to %q, not followed", target, res.Header.Get("Location"))
			}
			if allowed != nil && !allowed(next) {
				return nil, nil, fmt.Errorf("%s redirects to %s, which robots.txt disallows", target, next)
			}
			target = next
		case code == http.StatusNotFound || code == http.StatusGone:
			discardBody(res.Body)
			return nil, nil, fmt.Errorf("%s answered %d: %w", target, code, errNoSitemap)
		default:
			discardBody(res.Body)
			return nil, nil, fmt.Errorf("%s answered %d %s", target, code, http.StatusText(code))
		}
	}
}

// report reports a sitemap that could not be read, as an outcome of its
// own URL: it is not a link of the graph, and no page waits for it.
func (s *sitemapReader) report(loc string, reason crawler.Reason, err error) {
	s.run.report(crawler.Outcome{URL: loc, Reason: reason, Err: err})
}

// sitemapQueue stores the URLs of a sitemap in batches and queues those
// that are in scope and due.
type sitemapQueue struct {
	s       *sitemapReader
	pending []listed
}

type listed struct {
	u       *url.URL
	lastMod time.Time
}

func (q *sitemapQueue) add(e sitemap.Entry) error {
	r := q.s.run
	n, err := urlnorm.Normalize(e.Loc, r.opts.Normalization())
	var u *url.URL
	if err == nil {
		u, err = url.Parse(n)
	}
	reason := scope.SkipInvalid
	if err == nil {
		reason = r.scope.Check(u, sitemapDepth)
	}
	if reason != scope.InScope {
		r.stats.sitemapSkipped.Add(1)
		r.stats.note("sitemap: " + reason.String())
		return nil
	}
	r.stats.sitemapURLs.Add(1)
	// A link already queued (a recrawl queues every due page from the
	// graph before the host's sitemap is read) still gets the entry's
	// lastmod, which may spare its request (frontier.addListed). The
	// latest instant the value can mean is what counts for that.
	if r.frontier.isSeen(n) && e.LastModUntil.IsZero() {
		return nil
	}
	q.pending = append(q.pending, listed{u: u, lastMod: e.LastModUntil})
	return nil
}

// flush stores the pending URLs, sitemapBatch at a time, and queues those
// due.
func (q *sitemapQueue) flush() error {
	if len(q.pending) == 0 {
		return nil
	}
	r := q.s.run
	for start := 0; start < len(q.pending); start += sitemapBatch {
		batch := q.pending[start:min(start+sitemapBatch, len(q.pending))]
		links := make([]*linkgraph.Link, len(batch))
		for i, p := range batch {
			links[i] = &linkgraph.Link{URL: p.u.String()}
		}
		if err := r.opts.Graph.UpsertLinks(links); err != nil {
			return fmt.Errorf("store sitemap URLs: %w", err)
		}
		for i, l := range links {
			if !l.RetrievedAt.Before(r.cutoff) || !r.frontier.work.owns(l.ID) {
				continue
			}
			if _, err := r.frontier.addListed(*l, sitemapDepth, batch[i].lastMod); err != nil {
				return fmt.Errorf("queue sitemap URLs: %w", err)
			}
		}
	}
	q.pending = q.pending[:0]
	return r.frontier.work.flush(r.ctx())
}

func isHTML(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "text/html" || mt == "application/xhtml+xml")
}

// discardBody reads a little of a body before closing it, so that the
// connection may be reused.
func discardBody(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, 4<<10)
	_ = body.Close()
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/politeness"
	"github.com/linksrus/linksrus/crawler/robots"
	"github.com/linksrus/linksrus/crawler/workqueue"
)

// How long a robots.txt decision is used before the file is fetched again:
// RFC 9309 asks caches not to keep rules for more than a day; a file that
// stayed unreachable through every retry is tried again after a minute.
const (
	robotsTTL      = 24 * time.Hour
	robotsErrorTTL = time.Minute
)

// robotsTable fetches and keeps the robots.txt of every origin a run
// touches. A host's robots.txt is fetched before any of its pages: the
// host is paused in the scheduler meanwhile, its pages wait in the queue,
// and the fetch itself takes a slot on the host like any other request,
// from a goroutine of its own, never from a fetch worker. An unreachable
// file (5xx, 429, a network error) is fetched again under the run's retry
// policy, with the host deferred for the backoff; only when the retries
// run out are the host's pages reported, with ReasonRobotsUnreachable and
// the error.
type robotsTable struct {
	*hostFetcher
	opts  robots.Options
	retry crawler.RetryPolicy
	// maxDelay caps the files' Crawl-delay (Options.MaxCrawlDelay).
	maxDelay time.Duration

	// share, if set, passes every robots.txt fetched on to the other
	// processes of a shared crawl.
	share func(host string, rc workqueue.Robots)

	mu      sync.Mutex
	origins map[string]*robotsEntry
	paused  map[string]int // fetches under way per scheduler host
	// failed holds, per origin with no fetch under way, the attempts that
	// found its robots.txt unreachable and have not been given up on yet
	// (here, before the host was withdrawn, or by another process): the
	// next fetch goes on from them.
	failed map[string]robotsFailures
}

// robotsFailures is a robots.txt's unreachable attempts so far, to go on
// from: how many, the last error, and when the next may start.
type robotsFailures struct {
	count   int
	err     string
	retryAt time.Time
	expires time.Time
}

type robotsEntry struct {
	fetching bool
	// done is closed when a fetch ends (nil for a decision taken from
	// another process, which is never waited for).
	done    chan struct{}
	rules   *robots.Rules
	basis   robots.Basis
	err     error // the last fetch's, once retries ran out
	expires time.Time
	// withdrawn: the fetch stopped undecided, the host being withdrawn
	// from this process (robotsTable.undecided).
	withdrawn bool
}

func newRobotsTable(hf *hostFetcher, o *Options) *robotsTable {
	return &robotsTable{
		hostFetcher: hf,
		opts: robots.Options{
			RobotName: robotName(o.UserAgent),
			UserAgent: o.UserAgent,
		},
		retry:    o.Retry,
		maxDelay: o.MaxCrawlDelay,
		origins:  make(map[string]*robotsEntry),
		paused:   make(map[string]int),
		failed:   make(map[string]robotsFailures),
	}
}

// origin returns the cache key of u's robots.txt.
func origin(u *url.URL) string { return strings.ToLower(u.Scheme + "://" + u.Host) }

// ensure starts fetching the robots.txt of the URL's origin unless it is
// known (and fresh) or being fetched.
func (t *robotsTable) ensure(rawURL string) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ensureLocked(u)
}

// ensureLocked returns u's origin entry if it can decide now, and otherwise
// makes sure a fetch is under way. t.mu must be held.
func (t *robotsTable) ensureLocked(u *url.URL) *robotsEntry {
	key := origin(u)
	e := t.origins[key]
	if e != nil && (e.fetching || time.Now().Before(e.expires)) {
		if e.fetching {
			return nil
		}
		return e
	}
	e = &robotsEntry{fetching: true, done: make(chan struct{})}
	t.origins[key] = e
	if t.paused[u.Host]++; t.paused[u.Host] == 1 {
		t.sched.Pause(u.Host)
	}
	prior := t.failed[key]
	delete(t.failed, key)
	if time.Now().After(prior.expires) {
		prior = robotsFailures{}
	}
	t.spawn(func() { t.fetch(key, u.Host, e, prior) })
	return nil
}

// wait returns the decision for u's origin once it is known, fetching
// the file if need be; it fails only when the run or ctx ends first, or
// the host is withdrawn from this process while the file is fetched (an
// error wrapping crawler.ErrWithdrawn).
func (t *robotsTable) wait(ctx context.Context, u *url.URL) (*robotsEntry, error) {
	for {
		t.mu.Lock()
		e := t.ensureLocked(u)
		var pending *robotsEntry
		if e == nil {
			pending = t.origins[origin(u)]
		}
		t.mu.Unlock()
		if e != nil {
			return e, nil
		}
		select {
		case <-pending.done:
		case <-t.ctx.Done():
			return nil, t.ctx.Err()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		t.mu.Lock()
		withdrawn := pending.withdrawn
		t.mu.Unlock()
		if withdrawn {
			return nil, errLeaseEnded
		}
	}
}

// admit decides about u by its origin's robots.txt, without ever waiting:
// a URL whose origin's robots.txt is not known yet is answered with
// crawler.ErrNotReady, and the fetch stage parks the page under its host,
// which stays paused until the file is known.
func (t *robotsTable) admit(u *url.URL) error {
	if u.EscapedPath() == "/robots.txt" {
		return nil
	}
	t.mu.Lock()
	e := t.ensureLocked(u)
	t.mu.Unlock()
	switch {
	case e == nil:
		return fmt.Errorf("robots.txt of %s: %w", u.Host, crawler.ErrNotReady)
	case e.err != nil:
		return crawler.Skip(crawler.ReasonRobotsUnreachable, e.err)
	case !e.rules.AllowedURL(u):
		return crawler.Skip(crawler.ReasonRobots, fmt.Errorf("disallowed by robots.txt (%s)", e.basis))
	}
	return nil
}

// fetch fetches one origin's robots.txt, retrying while it is
// unreachable, then publishes the result and resumes the host. The
// attempts go on from prior, the failures of earlier fetches of the file
// (this process's or, in a shared crawl, another's): the retry policy
// bounds the attempts of the file, not of each process it passes through.
func (t *robotsTable) fetch(key, host string, e *robotsEntry, prior robotsFailures) {
	get := t.getterFor(host)
	if prior.count > 0 {
		t.sched.Defer(host, prior.retryAt)
	}
	var body []byte
	var basis robots.Basis
	var err error
	for attempt := prior.count; ; attempt++ {
		body, basis, err = robots.FetchBody(t.ctx, get, key, t.opts)
		if err == nil || t.ctx.Err() != nil || errors.Is(err, crawler.ErrWithdrawn) {
			break
		}
		if attempt >= t.retry.MaxRetries {
			t.shareFailures(host, key, attempt+1, err, 0)
			err = fmt.Errorf("robots.txt unreachable after %d attempts: %w", attempt+1, err)
			break
		}
		wait, ok := t.backoff(attempt, err)
		if !ok {
			t.shareFailures(host, key, attempt+1, err, 0)
			break
		}
		// The next attempt's Acquire waits for this; so do the host's
		// other requests.
		retryAt := time.Now().Add(wait)
		t.sched.Defer(host, retryAt)
		prior = robotsFailures{count: attempt + 1, err: err.Error(), retryAt: retryAt, expires: time.Now().Add(robotsErrorTTL)}
		t.shareFailures(host, key, attempt+1, err, wait)
	}
	if t.ctx.Err() != nil && err == nil {
		err = t.ctx.Err()
	}
	if t.ctx.Err() == nil && errors.Is(err, crawler.ErrWithdrawn) {
		t.undecided(key, host, e, prior)
		return
	}
	rules := robots.RulesFor(basis, body, t.opts.RobotName)
	if err == nil && t.share != nil {
		t.share(host, workqueue.Robots{Origin: key, Basis: basis, Body: body, TTL: robotsTTL})
	}

	t.mu.Lock()
	e.rules, e.basis, e.err = rules, basis, err
	e.expires = time.Now().Add(robotsTTL)
	if err != nil {
		e.expires = time.Now().Add(robotsErrorTTL)
	} else if d, ok := rules.CrawlDelay(); ok {
		t.sched.SetDelay(host, min(d, t.maxDelay))
	}
	t.endFetchLocked(host, e)
	t.mu.Unlock()
}

// shareFailures tells the other processes of a shared crawl that the
// origin's robots.txt was unreachable failures times in a row, and when it
// may be tried again (retry; none once the retries are given up). The
// record lasts as long as an unreachable file's decision, so that the
// host's next owner goes on with the attempts, or keeps the decision.
func (t *robotsTable) shareFailures(host, key string, failures int, err error, retry time.Duration) {
	if t.share == nil {
		return
	}
	t.share(host, workqueue.Robots{Origin: key, Basis: robots.BasisUnreachable, TTL: robotsErrorTTL,
		Failures: failures, Error: err.Error(), Retry: retry})
}

// endFetchLocked ends e's fetch, decided or not: the host resumes once no
// other fetch of its robots.txt runs, and those waiting for e look again.
// t.mu must be held.
func (t *robotsTable) endFetchLocked(host string, e *robotsEntry) {
	e.fetching = false
	if t.paused[host]--; t.paused[host] <= 0 {
		delete(t.paused, host)
		t.sched.Resume(host)
	}
	close(e.done)
}

// undecided ends a fetch cut short because the host was withdrawn from
// this process (its lease ended or awaits renewal): nothing is decided, or
// cached, and the file is fetched again when a page of the host asks, here
// once the lease is renewed (going on from the attempts that failed,
// prior), or by the host's next owner. The host's pages are not told the
// file is unreachable: it was never asked.
func (t *robotsTable) undecided(key, host string, e *robotsEntry, prior robotsFailures) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.origins[key] == e {
		delete(t.origins, key)
	}
	if prior.count > 0 {
		t.failed[key] = prior
	}
	e.withdrawn = true
	// Not asked again at once: a fenced host refuses every request until
	// its lease is renewed.
	t.sched.Defer(host, time.Now().Add(fencedRetry))
	t.endFetchLocked(host, e)
}

// busy reports whether a robots.txt of host is being fetched (the host
// stays paused until its decision is known and shared).
func (t *robotsTable) busy(host string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.paused[host] > 0
}

// seed takes what another process learned of host's origin's robots.txt,
// unless this run has a fresh decision of its own or is fetching the file:
// its decision, or the attempts that found it unreachable. Those the retry
// policy allows no more of are this run's decision too (the host's pages
// are reported with ReasonRobotsUnreachable); otherwise the next fetch
// goes on from them.
func (t *robotsTable) seed(host string, rc workqueue.Robots) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.origins[rc.Origin]; e != nil && (e.fetching || (e.err == nil && time.Now().Before(e.expires))) {
		return
	}
	delete(t.failed, rc.Origin)
	var err error
	if rc.Basis == robots.BasisUnreachable {
		if rc.Failures <= t.retry.MaxRetries {
			delete(t.origins, rc.Origin)
			t.failed[rc.Origin] = robotsFailures{count: rc.Failures, err: rc.Error,
				retryAt: time.Now().Add(rc.Retry), expires: time.Now().Add(rc.TTL)}
			return
		}
		err = fmt.Errorf("robots.txt unreachable after %d attempts: %s", rc.Failures, rc.Error)
	}
	rules := robots.RulesFor(rc.Basis, rc.Body, t.opts.RobotName)
	t.origins[rc.Origin] = &robotsEntry{rules: rules, basis: rc.Basis, err: err, expires: time.Now().Add(rc.TTL)}
	if d, ok := rules.CrawlDelay(); ok {
		t.sched.SetDelay(host, min(d, t.maxDelay))
	}
}

// backoff is the wait before retry attempt+1 of a robots.txt fetch, under
// the page retry policy: its backoff, or a longer Retry-After if the
// server sent one the policy accepts.
func (t *robotsTable) backoff(attempt int, err error) (time.Duration, bool) {
	var se *robots.StatusError
	if !errors.As(err, &se) {
		return t.retry.Decide(nil, err, attempt)
	}
	res := &http.Response{StatusCode: se.StatusCode, Header: http.Header{}}
	if se.RetryAfter != "" {
		res.Header.Set("Retry-After", se.RetryAfter)
	}
	return t.retry.Decide(res, nil, attempt)
}

// hostFetcher runs the requests the engine makes on its own behalf, not
// for a page: robots.txt files and sitemaps. Each runs in a goroutine of
// its own (never a fetch worker, which would sit idle through the host's
// delay), counted in the run's WaitGroup so that the run waits for it,
// and every request takes a slot of its host in the run's scheduler like
// a page's request: the per-host limit and delay hold for these too.
type hostFetcher struct {
	ctx     context.Context // the run's
	wg      *sync.WaitGroup
	sched   *politeness.Scheduler[item]
	getter  crawler.URLGetter // does not follow redirects
	timeout time.Duration
	// allow says whether a request to a host may start, as the run's
	// work source decides (in a shared crawl: its lease is held and within
	// its term).
	allow func(host string) bool
}

// newHostFetcher returns the run's fetcher of its own requests, fenced as
// the crawler's are: a request to a host starts only if allow says so, and
// runs under fence(host) (see sentReporter).
func newHostFetcher(ctx context.Context, wg *sync.WaitGroup, sched *politeness.Scheduler[item], o *Options,
	allow func(host string) bool, fence func(host string) context.Context) *hostFetcher {
	getter := crawler.WithoutRedirects(sentReporter{next: o.URLGetter, sched: sched, fence: fence})
	if o.Recorder != nil {
		getter = &recordingGetter{next: getter, rec: o.Recorder, limit: o.MaxBodyBytes}
	}
	return &hostFetcher{ctx: ctx, wg: wg, sched: sched, getter: getter, timeout: o.FetchTimeout, allow: allow}
}

// spawn runs fn in a goroutine the run waits for.
func (h *hostFetcher) spawn(fn func()) {
	h.wg.Go(fn)
}

// getterFor returns a getter whose requests take a slot of their host;
// those to host itself must also be allowed by h.allow.
func (h *hostFetcher) getterFor(host string) *acquiringGetter {
	return &acquiringGetter{sched: h.sched, next: h.getter, timeout: h.timeout, host: host, allow: h.allow}
}

// acquiringGetter takes a host slot for each request (waiting for it in the
// calling goroutine, a robots.txt fetcher's) and frees it once the response
// is read. The timeout applies from when the request may start.
type acquiringGetter struct {
	sched   *politeness.Scheduler[item]
	next    crawler.URLGetter
	timeout time.Duration
	// allow, if set, is asked before each request to host (the origin's
	// own, not a redirect's) whether it may still start.
	host  string
	allow func(host string) bool
	// decorate, if set, is applied to each request once its slot is
	// taken, as the crawler decorates a page's (Options.DecorateRequest).
	decorate func(*http.Request) error
}

func (g *acquiringGetter) Do(req *http.Request) (*http.Response, error) {
	release, err := g.sched.Acquire(req.Context(), req.URL.Host)
	if err != nil {
		return nil, err
	}
	if g.allow != nil && req.URL.Host == g.host && !g.allow(g.host) {
		release()
		return nil, errLeaseEnded
	}
	if g.decorate != nil {
		if err := g.decorate(req); err != nil {
			release()
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(req.Context(), g.timeout)
	res, err := g.next.Do(req.WithContext(ctx))
	if err != nil {
		cancel()
		release()
		return nil, err
	}
	res.Body = &releasingBody{ReadCloser: res.Body, release: func() { cancel(); release() }}
	return res, nil
}

type releasingBody struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}

// robotName is the product token of a User-Agent ("linksrus-crawler/1.0
// (+...)" → "linksrus-crawler"), the name robots.txt groups are matched
// against: RFC 9309 allows letters, '-' and '_' only.
func robotName(userAgent string) string {
	name := userAgent
	if i := strings.IndexAny(name, "/ "); i >= 0 {
		name = name[:i]
	}
	name = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			return r
		}
		return -1
	}, name)
	if name == "" {
		return robots.DefaultRobotName
	}
	return name
}

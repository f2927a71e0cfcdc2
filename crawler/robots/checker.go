package robots

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Getter performs HTTP requests; *http.Client satisfies it. Pass the
// crawler's client so robots.txt fetches go through the same transport,
// timeouts and private-network guard as page fetches.
type Getter interface {
	Do(req *http.Request) (*http.Response, error)
}

// Defaults of Options; see the field documentation for the reasoning.
const (
	DefaultRobotName     = "linksrus"
	DefaultUserAgent     = "linksrus/1.0 (+https://github.com/linksrus/linksrus)"
	DefaultMaxSize       = 500 << 10
	DefaultMaxRedirects  = 5
	DefaultCacheSize     = 10000
	DefaultTTL           = 24 * time.Hour
	DefaultErrorTTL      = time.Minute
	DefaultMaxCrawlDelay = 10 * time.Second
	DefaultFetchTimeout  = 30 * time.Second
)

// Options configure a Checker. Zero fields take the Default* values.
type Options struct {
	// RobotName is the product token looked up in User-agent lines. RFC
	// 9309 allows only letters, '_' and '-'. Default "linksrus".
	RobotName string
	// UserAgent is the User-Agent header of robots.txt requests; it should
	// name the crawler and how to reach its operator.
	UserAgent string
	// MaxSize is the number of body bytes parsed; RFC 9309 requires at
	// least 500 KiB (the default) and allows ignoring the rest.
	MaxSize int64
	// MaxRedirects is the number of redirects followed; RFC 9309 asks for
	// at least five (the default).
	MaxRedirects int
	// CacheSize is the number of origins whose rules are kept; the least
	// recently used is evicted first. Default 10000 (rules hold only the
	// groups for RobotName, typically well under a kilobyte).
	CacheSize int
	// TTL is how long fetched rules (and "unavailable" outcomes) are used
	// before robots.txt is fetched again. RFC 9309 says caches SHOULD NOT
	// be used for more than 24 hours, the default.
	TTL time.Duration
	// ErrorTTL is how long an unreachable robots.txt (5xx, 429, network
	// error) disallows the whole origin before it is fetched again.
	// Default one minute: long enough to back off from a struggling
	// server, short enough not to lose a site to a transient error.
	ErrorTTL time.Duration
	// MaxCrawlDelay caps Crawl-delay values. Default 10s: a larger delay
	// makes a site practically uncrawlable.
	MaxCrawlDelay time.Duration
	// FetchTimeout bounds one robots.txt fetch including redirects. It
	// runs independently of the callers' contexts, because several callers
	// share its result. Default 30s.
	FetchTimeout time.Duration
	// Now returns the current time; tests replace it. Default time.Now.
	Now func() time.Time
}

// Basis says how a Decision was reached, for crawl reports.
type Basis uint8

// The possible values of Decision.Basis.
const (
	// BasisRules: the origin's robots.txt was fetched and its rules applied.
	BasisRules Basis = iota
	// BasisRobotsPath: the URL is /robots.txt itself, which is always allowed.
	BasisRobotsPath
	// BasisUnavailable: robots.txt answered 4xx or redirected too often;
	// everything is allowed.
	BasisUnavailable
	// BasisUnreachable: robots.txt answered 5xx or 429 or could not be
	// fetched; everything is disallowed until Options.ErrorTTL passes.
	BasisUnreachable
)

// String describes b for crawl reports.
func (b Basis) String() string {
	switch b {
	case BasisRules:
		return "robots.txt rules"
	case BasisRobotsPath:
		return "robots.txt path"
	case BasisUnavailable:
		return "robots.txt unavailable"
	case BasisUnreachable:
		return "robots.txt unreachable"
	}
	return fmt.Sprintf("robots.Basis(%d)", uint8(b))
}

// Decision is the outcome of Checker.Allowed.
type Decision struct {
	// Allowed reports whether the URL may be fetched.
	Allowed bool
	// CrawlDelay is the origin's Crawl-delay for our robot, capped at
	// Options.MaxCrawlDelay; zero if none.
	CrawlDelay time.Duration
	// Basis says where the decision comes from.
	Basis Basis
}

// Sentinel errors; match them with errors.Is.
var (
	// ErrInvalidURL is returned for a nil, relative or non-http(s) URL.
	ErrInvalidURL = errors.New("robots: URL is not absolute http(s)")
	// ErrClosed is returned by Allowed after Close.
	ErrClosed = errors.New("robots: checker closed")
	// ErrOptions is wrapped by New for invalid Options.
	ErrOptions = errors.New("robots: invalid options")
)

// Checker answers robots.txt questions for many origins concurrently. Create
// it with New and release it with Close.
type Checker struct {
	get  Getter
	opts Options

	ctx    context.Context // cancelled by Close; parent of every fetch
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	entries map[string]*entry
	lru     *list.List // of *entry, most recently used first
}

// entry is one origin's cache slot. Fields other than key and elem are
// written once by the fetching goroutine before done is closed.
type entry struct {
	key  string
	elem *list.Element
	done chan struct{}

	rules   *Rules
	basis   Basis
	expires time.Time
	err     error
}

// New returns a Checker that fetches robots.txt files with get.
func New(get Getter, opts Options) (*Checker, error) {
	if get == nil {
		return nil, fmt.Errorf("%w: nil Getter", ErrOptions)
	}
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Checker{
		get:     get,
		opts:    opts,
		ctx:     ctx,
		cancel:  cancel,
		entries: make(map[string]*entry),
		lru:     list.New(),
	}, nil
}

func (o *Options) setDefaults() error {
	if o.RobotName == "" {
		o.RobotName = DefaultRobotName
	}
	for i := 0; i < len(o.RobotName); i++ {
		if c := o.RobotName[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-') {
			return fmt.Errorf("%w: RobotName %q may only contain letters, '_' and '-' (RFC 9309 2.2.1)", ErrOptions, o.RobotName)
		}
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	if o.MaxSize < 0 || o.MaxRedirects < 0 || o.CacheSize < 0 || o.TTL < 0 ||
		o.ErrorTTL < 0 || o.MaxCrawlDelay < 0 || o.FetchTimeout < 0 {
		return fmt.Errorf("%w: negative limit in %+v", ErrOptions, *o)
	}
	if o.MaxSize == 0 {
		o.MaxSize = DefaultMaxSize
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	if o.CacheSize == 0 {
		o.CacheSize = DefaultCacheSize
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	if o.ErrorTTL == 0 {
		o.ErrorTTL = DefaultErrorTTL
	}
	if o.MaxCrawlDelay == 0 {
		o.MaxCrawlDelay = DefaultMaxCrawlDelay
	}
	if o.FetchTimeout == 0 {
		o.FetchTimeout = DefaultFetchTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}

// Allowed reports whether u may be fetched and the Crawl-delay of its
// origin (scheme, host and port), fetching the origin's robots.txt first
// if it is not cached. Concurrent calls for one origin share one fetch. A
// robots.txt that cannot be fetched is not an error but a Decision (see
// Basis); errors are returned only for an invalid URL, a ctx that ends
// while waiting, and a closed Checker. Pass normalised URLs (package
// urlnorm): the origin key is the URL's scheme and host as written, so
// "example.com:80" and "example.com" would be fetched separately.
func (c *Checker) Allowed(ctx context.Context, u *url.URL) (Decision, error) {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Decision{}, fmt.Errorf("robots: check %v: %w", u, ErrInvalidURL)
	}
	if u.EscapedPath() == "/robots.txt" {
		return Decision{Allowed: true, Basis: BasisRobotsPath}, nil
	}
	key := strings.ToLower(u.Scheme + "://" + u.Host)
	e, err := c.lookup(key)
	if err != nil {
		return Decision{}, fmt.Errorf("robots: check %s: %w", key, err)
	}
	select {
	case <-e.done:
	case <-ctx.Done():
		return Decision{}, fmt.Errorf("robots: wait for %s/robots.txt: %w", key, ctx.Err())
	}
	if e.err != nil {
		return Decision{}, fmt.Errorf("robots: check %s: %w", key, e.err)
	}
	d := Decision{Allowed: e.rules.Allowed(requestPath(u)), Basis: e.basis}
	if delay, ok := e.rules.CrawlDelay(); ok {
		d.CrawlDelay = min(delay, c.opts.MaxCrawlDelay)
	}
	return d, nil
}

// lookup returns the cache entry for key, starting its fetch if it is
// missing or expired.
func (c *Checker) lookup(key string) (*entry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	if e, ok := c.entries[key]; ok {
		select {
		case <-e.done:
			if c.opts.Now().Before(e.expires) {
				c.lru.MoveToFront(e.elem)
				return e, nil
			}
			c.remove(e)
		default: // in flight: share it
			c.lru.MoveToFront(e.elem)
			return e, nil
		}
	}
	e := &entry{key: key, done: make(chan struct{})}
	e.elem = c.lru.PushFront(e)
	c.entries[key] = e
	for c.lru.Len() > c.opts.CacheSize {
		c.remove(c.lru.Back().Value.(*entry))
	}
	c.wg.Add(1)
	go c.fill(e)
	return e, nil
}

// remove drops e from the cache; goroutines waiting on it still get its
// result. c.mu must be held.
func (c *Checker) remove(e *entry) {
	if c.entries[e.key] == e {
		delete(c.entries, e.key)
	}
	c.lru.Remove(e.elem)
}

// fill fetches and compiles e's robots.txt and publishes the result.
func (c *Checker) fill(e *entry) {
	defer c.wg.Done()
	ctx, cancel := context.WithTimeout(c.ctx, c.opts.FetchTimeout)
	defer cancel()
	e.rules, e.basis = c.fetch(ctx, e.key)
	if c.ctx.Err() != nil {
		e.err = ErrClosed
	}
	ttl := c.opts.TTL
	if e.basis == BasisUnreachable {
		ttl = c.opts.ErrorTTL
	}
	e.expires = c.opts.Now().Add(ttl)
	close(e.done)
}

// Len returns the number of origins in the cache.
func (c *Checker) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Close cancels robots.txt fetches in flight, waits for them to end and
// makes later calls to Allowed fail with ErrClosed. Callers waiting on a
// cancelled fetch get ErrClosed. Close is safe to call more than once.
func (c *Checker) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
	return nil
}

// requestPath returns the part of u that robots.txt rules match: the
// escaped path (at least "/") and the query.
func requestPath(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	return p
}

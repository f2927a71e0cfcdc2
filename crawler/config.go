package crawler

import (
	"errors"
	"fmt"
	"net/http"
	"syscall"
	"time"

	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/crawler/urlnorm"
	"github.com/linksrus/linksrus/pipeline"
)

// Defaults for the Config fields left zero.
const (
	// DefaultFetchWorkers is the size of the fetch worker pool. Fetching
	// waits on the network far more than it computes, so the pool is much
	// larger than the number of CPUs.
	DefaultFetchWorkers = 32
	// DefaultMaxBodyBytes bounds the body read from one response: large
	// enough for nearly every real page, small enough that a few dozen
	// workers reading hostile endless bodies cannot exhaust memory.
	DefaultMaxBodyBytes = 4 << 20
	// DefaultFetchTimeout bounds one fetch, from sending the request to the
	// end of the body, so a slow server cannot hold a worker forever.
	DefaultFetchTimeout = 30 * time.Second
	// DefaultMaxRedirects is how many redirects a fetch follows, as
	// net/http does.
	DefaultMaxRedirects = 10
	// DefaultStoreBatchSize is the most pages the graph updater and the
	// indexer write in one go: what a busy crawl delivers in about
	// DefaultStoreBatchDelay, so that the delay, not the size, closes a
	// batch, while each write stays short.
	DefaultStoreBatchSize = 256
	// DefaultStoreBatchDelay is how long a batch of pages waits for more
	// pages to share its write, while they keep coming. A store pays per
	// write (an fsync, a full-text index segment and the merging of
	// segments later), and batches of whatever queued up stay small: on
	// the rust documentation corpus (21,632 pages) the embedded stores
	// wrote 950 batches of 23 pages on average, against about 130 of 170
	// when batches wait up to 50 ms, which took a sixth off the crawl.
	DefaultStoreBatchDelay = 50 * time.Millisecond
	// StoreBatchPause is the pause in the arrival of pages that closes a
	// waiting batch (see Config.StoreBatchDelay): far longer than the gap
	// between pages of a busy crawl (a fraction of a millisecond), short
	// beside a round trip to a site, so that a crawl whose next pages
	// depend on the links held in the batch (its start, a small site) is
	// not slowed down by the wait.
	StoreBatchPause = 2 * time.Millisecond
	// StoreBatchBytes is the content (bodies and extracted text) at which
	// a batch of pages is written whatever its size, so that the pages
	// held for a batch stay bounded in memory however large each is.
	StoreBatchBytes = 32 << 20
	// DefaultGraphWriters is how many batches of pages are written to the
	// graph at once. Two is enough for a store across a network: one
	// batch is gathered and sent while the other is on the wire, so the
	// stage is not held to one round trip at a time.
	DefaultGraphWriters = 2
	// DefaultUserAgent names the crawler in its requests.
	DefaultUserAgent = "linksrus-crawler/1.0 (+https://github.com/linksrus/linksrus)"
)

// ErrInvalidConfig is returned (wrapped) by NewCrawler and the stage
// constructors for a Config they cannot use.
var ErrInvalidConfig = errors.New("crawler: invalid config")

// Config configures a Crawler. Every field is optional; the zero Config
// crawls the public web with the defaults below and writes nowhere (set
// Graph and Indexer to keep the stores current).
type Config struct {
	// PrivateNetworkDetector drops extracted links, and refuses seeds,
	// whose host is a literal private address or a local-only name.
	// Default: privnet.New() (no allow-list).
	PrivateNetworkDetector PrivateNetworkDetector

	// URLGetter sends the requests. Default: an *http.Client whose
	// transport dials through the detector's dial-time guard (when the
	// detector has a Control method like *privnet.Detector; otherwise
	// privnet.New()'s) and uses no proxy. Redirects are followed by the
	// fetch stage itself, not by the getter (see Fetcher and MaxRedirects).
	// A custom URLGetter is responsible for its own dial-time check: see
	// privnet.Detector.Transport.
	URLGetter URLGetter

	// MaxRedirects is how many redirects one fetch follows, each target
	// checked like the first URL (private network, Gates); one more stops
	// the page with ReasonTooManyRedirects. Negative: none are followed.
	// Default: DefaultMaxRedirects.
	MaxRedirects int

	// Retry, if set, has failed requests that may succeed later (timeouts,
	// connection resets, 429, most 5xx) sent again with exponential
	// backoff, honouring Retry-After, by the fetch stage itself: with a
	// Scheduler, a page waiting for its retry is parked, not held by a
	// worker. The zero RetryPolicy gives its defaults. Default: nil, no
	// retries.
	Retry *RetryPolicy

	// HeadFirst sends a HEAD request before each GET (of every redirect
	// hop) and skips non-HTML resources on its answer (a 2xx with a
	// Content-Type that is not HTML) with ReasonContentType, without
	// downloading them; any other answer (HTML, no type, a redirect, 405
	// from servers without HEAD) is settled by the GET. It pays off only
	// where many links lead to large non-HTML resources that their URL
	// does not betray (names ending in .png, .pdf and the like are skipped
	// anyway). Default: false, since it costs a round trip per page.
	HeadFirst bool

	// LinkNormalization selects the optional URL normalisations applied to
	// extracted links (sorting query parameters, stripping tracking
	// parameters). The safe ones of package urlnorm are always applied.
	// Default: none of the optional ones.
	LinkNormalization urlnorm.Options

	// Graph receives the crawled pages, the links found on them and the
	// edges between them. Default: nil, no graph updater stage.
	Graph Graph

	// Indexer receives each crawled page's title and text, unless the page
	// asked not to be indexed. Default: nil, no indexer stage.
	Indexer Indexer

	// FetchWorkers is the number of pages fetched at once. Default:
	// DefaultFetchWorkers.
	FetchWorkers int

	// StoreBatchSize is the most pages written to the graph, or to the
	// index, in one batch. 1 writes every page on its own. Default:
	// DefaultStoreBatchSize. A batch also closes once its pages hold
	// StoreBatchBytes of content (body and text), so that a run of large
	// pages does not pile up in memory.
	StoreBatchSize int

	// StoreBatchDelay is the longest a batch waits for more pages, from
	// its first page on, while pages keep arriving: a batch is written
	// as soon as the pages stop coming (a pause of StoreBatchPause), so a
	// page waits only while others are on their way to share its write.
	// Negative: batches never wait, and hold the pages that arrived
	// while the previous one was being written. Default:
	// DefaultStoreBatchDelay.
	StoreBatchDelay time.Duration

	// StoreFlush, if not nil, makes a store batch being gathered go at
	// once, one batch per value received, whatever StoreBatchDelay says:
	// a crawl that has run out of pages to fetch while the links it waits
	// for sit in a batch asks for them. The store stage has GraphWriters
	// workers (one without a Graph), each gathering its own batch: send
	// that many values to flush them all (the crawl engine's frontier
	// does, when it runs dry with pages in flight).
	StoreFlush <-chan struct{}

	// GraphWriters is how many batches are written to the graph at once,
	// each by its own worker calling Graph concurrently (a Graph that keeps
	// state between the calls of one batch implements BatchGraph); with an
	// Indexer, as many batches go to the index at once, beside them. 1
	// writes one batch after the other. Default: DefaultGraphWriters.
	GraphWriters int

	// MaxBodyBytes is the largest body read; larger pages are skipped with
	// ReasonTooLarge. Default: DefaultMaxBodyBytes.
	MaxBodyBytes int64

	// FetchTimeout bounds each fetch, body included. Default:
	// DefaultFetchTimeout.
	FetchTimeout time.Duration

	// DecorateRequest, if set, is called on every request before it is sent,
	// to add headers, cookies or credentials. The request already carries
	// the fetch's context and DefaultUserAgent, which it may replace. An
	// error fails the fetch with ReasonFetchError.
	DecorateRequest func(req *http.Request) error

	// Gates, if set, are asked in order, before each request and after the
	// built-in checks, whether the URL may be fetched; the first error stops
	// the page (see Gate). They are where robots.txt, scope and similar
	// policies plug in: package engine's crawl obeys robots.txt through
	// one of its own; a crawl without it can build one on robots.Fetch
	// and Rules.AllowedURL, and on ScopeGate for a scope.
	Gates []Gate

	// Processors receive every crawled page beside the graph updater and
	// the indexer, each its own copy, to extract structured items or
	// archive pages. A processor's error aborts the crawl; returning a nil
	// payload drops only its copy. Default: none.
	Processors []pipeline.Processor

	// Recorder, if set, is given every GET response the fetch stage reads,
	// redirect hops included, with its body as the server sent it (see
	// Recorder): how a crawl is archived. The Fetcher then asks for gzip
	// itself and decodes it. Default: nil, nothing recorded.
	Recorder Recorder

	// Scheduler, if set, is asked before every request and takes back the
	// pages whose next request must wait (see RequestScheduler): how a
	// crawl keeps per-host limits at the moment each request starts. The
	// link iterator given to Crawl must then return parked pages (see
	// ResumingIterator). Default: nil, requests go out as soon as a fetch
	// worker takes the page, and a retry waits in its worker.
	Scheduler RequestScheduler

	// OnOutcome, if set, receives the Outcome of every URL of a crawl, once,
	// before Crawl returns. It is called from the pipeline's goroutines,
	// concurrently, and should return quickly.
	OnOutcome func(Outcome)
}

// withDefaults validates cfg and fills in the defaults.
func (cfg Config) withDefaults() (Config, error) {
	switch {
	case cfg.FetchWorkers < 0:
		return cfg, fmt.Errorf("%w: FetchWorkers %d < 0", ErrInvalidConfig, cfg.FetchWorkers)
	case cfg.StoreBatchSize < 0:
		return cfg, fmt.Errorf("%w: StoreBatchSize %d < 0", ErrInvalidConfig, cfg.StoreBatchSize)
	case cfg.GraphWriters < 0:
		return cfg, fmt.Errorf("%w: GraphWriters %d < 0", ErrInvalidConfig, cfg.GraphWriters)
	case cfg.MaxBodyBytes < 0:
		return cfg, fmt.Errorf("%w: MaxBodyBytes %d < 0", ErrInvalidConfig, cfg.MaxBodyBytes)
	case cfg.FetchTimeout < 0:
		return cfg, fmt.Errorf("%w: FetchTimeout %v < 0", ErrInvalidConfig, cfg.FetchTimeout)
	}
	if cfg.Retry != nil {
		if _, err := cfg.Retry.withDefaults(); err != nil {
			return cfg, err
		}
	}
	for i, g := range cfg.Gates {
		if g == nil {
			return cfg, fmt.Errorf("%w: Gates[%d] is nil", ErrInvalidConfig, i)
		}
	}
	for i, p := range cfg.Processors {
		if p == nil {
			return cfg, fmt.Errorf("%w: Processors[%d] is nil", ErrInvalidConfig, i)
		}
	}
	if cfg.FetchWorkers == 0 {
		cfg.FetchWorkers = DefaultFetchWorkers
	}
	if cfg.StoreBatchSize == 0 {
		cfg.StoreBatchSize = DefaultStoreBatchSize
	}
	if cfg.StoreBatchDelay == 0 {
		cfg.StoreBatchDelay = DefaultStoreBatchDelay
	}
	if cfg.GraphWriters == 0 {
		cfg.GraphWriters = DefaultGraphWriters
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.FetchTimeout == 0 {
		cfg.FetchTimeout = DefaultFetchTimeout
	}
	if cfg.PrivateNetworkDetector == nil {
		cfg.PrivateNetworkDetector = privnet.New()
	}
	if cfg.URLGetter == nil {
		cfg.URLGetter = defaultURLGetter(cfg.PrivateNetworkDetector, cfg.FetchWorkers)
	}
	return cfg, nil
}

// dialGuard is implemented by detectors that can check dialled addresses,
// such as *privnet.Detector.
type dialGuard interface {
	Control(network, address string, c syscall.RawConn) error
}

func defaultURLGetter(d PrivateNetworkDetector, workers int) *http.Client {
	guard, ok := d.(dialGuard)
	if !ok {
		guard = privnet.New()
	}
	// privnet's transport and dialer settings, with the detector's own
	// check (and so its allow-list) at dial time.
	dialer := privnet.New().Dialer()
	dialer.Control = guard.Control
	tr := privnet.New().Transport()
	tr.DialContext = dialer.DialContext
	// Workers often fetch from the same host; net/http's default of two
	// idle connections per host would make them reconnect all the time.
	tr.MaxIdleConnsPerHost = workers
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= DefaultMaxRedirects {
				return fmt.Errorf("stopped after %d redirects", DefaultMaxRedirects)
			}
			return nil
		},
	}
}

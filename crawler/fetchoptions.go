package crawler

import (
	"fmt"
	"net/http"
	"syscall"
	"time"

	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/crawler/urlnorm"
)

// Defaults for the FetchOptions fields left zero.
const (
	// DefaultFetchWorkers is the size of the fetch worker pool. Fetching
	// waits on the network far more than it computes, so the pool is much
	// larger than the number of CPUs.
	DefaultFetchWorkers = 32
	// DefaultUserAgent names the crawler in its requests.
	DefaultUserAgent = "linksrus-crawler/1.0 (+https://github.com/linksrus/linksrus)"
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
)

// FetchOptions are the settings of how pages are requested and accepted:
// the fetch stage's. Config embeds them, and so does engine.Options, which
// hands them to its crawler as they are and sends its own requests
// (robots.txt, sitemaps) under them too. Every field is optional; each has
// one default, set by WithDefaults, and one check, made by Check.
type FetchOptions struct {
	// Workers is the number of pages fetched at once. Default:
	// DefaultFetchWorkers.
	Workers int

	// UserAgent is the User-Agent header of every request, set by the
	// fetch stage before DecorateRequest is called. Package engine sends
	// it with robots.txt and sitemap requests too, and matches its product
	// token (before the first '/' or space) against robots.txt's groups.
	// Default: DefaultUserAgent.
	UserAgent string

	// PrivateNetworkDetector drops extracted links, and refuses URLs
	// (seeds, redirect targets), whose host is a literal private address
	// or a local-only name. Default: privnet.New() (no allow-list).
	PrivateNetworkDetector PrivateNetworkDetector

	// URLGetter sends the requests. Default: an *http.Client whose
	// transport dials through the detector's dial-time guard (when the
	// detector has a Control method like *privnet.Detector; otherwise
	// privnet.New()'s), uses no proxy and keeps a connection alive per
	// worker (see NewURLGetter). Redirects are followed by the fetch stage
	// itself, not by the getter (see Fetcher and MaxRedirects). A custom
	// URLGetter is responsible for its own dial-time check: see
	// privnet.Detector.Transport.
	URLGetter URLGetter

	// DecorateRequest, if set, is called on every request before it is
	// sent, to add headers, cookies or credentials. The request already
	// carries the fetch's context and UserAgent, which it may replace. An
	// error fails the fetch with ReasonFetchError.
	DecorateRequest func(req *http.Request) error

	// MaxBodyBytes is the largest body read; larger pages are skipped with
	// ReasonTooLarge. Default: DefaultMaxBodyBytes.
	MaxBodyBytes int64

	// FetchTimeout bounds each fetch, body included. Default:
	// DefaultFetchTimeout.
	FetchTimeout time.Duration

	// MaxRedirects is how many redirects one fetch follows, each target
	// checked like the first URL (private network, gates); one more stops
	// the page with ReasonTooManyRedirects. Negative: none are followed.
	// Default: DefaultMaxRedirects.
	MaxRedirects int

	// HeadFirst sends a HEAD request before each GET (of every redirect
	// hop) and skips non-HTML resources on its answer (a 2xx with a
	// Content-Type that is not HTML) with ReasonContentType, without
	// downloading them; any other answer (HTML, no type, a redirect, 405
	// from servers without HEAD) is settled by the GET. It pays off only
	// where many links lead to large non-HTML resources that their URL
	// does not betray (names ending in .png, .pdf and the like are skipped
	// anyway). Default: false, since it costs a round trip per page.
	HeadFirst bool

	// Retry has failed requests that may succeed later (timeouts,
	// connection resets, 429, most 5xx) sent again with exponential
	// backoff, honouring Retry-After, by the fetch stage itself: a page
	// waiting for its retry is parked with its Frontier, not held by a
	// worker. The zero value is RetryPolicy's defaults (DefaultMaxRetries
	// retries, Retry-After honoured up to DefaultMaxRetryAfter); set
	// Retry.MaxRetries to -1 for none.
	Retry RetryPolicy

	// SortQuery and StripTracking turn on the optional URL normalisations
	// of extracted links (and of seeds and sitemap URLs, in package
	// engine): sorting query parameters, and dropping tracking parameters
	// (utm_*, gclid, fbclid...). Both merge more spellings of a page, at
	// the price of rewriting the query its server receives. The safe
	// normalisations of package urlnorm are always applied. Default: off.
	SortQuery, StripTracking bool

	// Recorder, if set, is given every GET response the fetch stage reads,
	// redirect hops included, with its body as the server sent it (see
	// Recorder): how a crawl is archived. The Fetcher then asks for gzip
	// itself and decodes it. Default: nil, nothing recorded.
	Recorder Recorder
}

// Check reports the first setting of o that cannot be used, as an
// *OptionError whose Field is the setting's path from FetchOptions
// ("FetchOptions.Workers", "FetchOptions.Retry.BaseDelay"). Zero values
// are valid: they stand for the defaults.
func (o FetchOptions) Check() error {
	switch {
	case o.Workers < 0:
		return negative("FetchOptions.Workers", o.Workers)
	case o.MaxBodyBytes < 0:
		return negative("FetchOptions.MaxBodyBytes", o.MaxBodyBytes)
	case o.FetchTimeout < 0:
		return negative("FetchOptions.FetchTimeout", o.FetchTimeout)
	}
	return o.Retry.check("FetchOptions.Retry")
}

// WithDefaults returns o with every zero setting replaced by its default,
// the one place where they are set: NewCrawler and package engine's New
// call it. It leaves settings that Check refuses as they are. On a Config
// or an engine.Options, which embed FetchOptions, it returns the fetch
// settings alone.
func (o FetchOptions) WithDefaults() FetchOptions {
	if o.Workers == 0 {
		o.Workers = DefaultFetchWorkers
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	if o.PrivateNetworkDetector == nil {
		o.PrivateNetworkDetector = privnet.New()
	}
	if o.URLGetter == nil {
		o.URLGetter = defaultURLGetter(o.PrivateNetworkDetector, o.Workers)
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.FetchTimeout == 0 {
		o.FetchTimeout = DefaultFetchTimeout
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	o.Retry = o.Retry.withDefaults()
	return o
}

// Normalization returns the urlnorm options that SortQuery and
// StripTracking select, for URLs that must be spelt as the crawl spells
// its links (package engine's seeds and sitemap URLs).
func (o FetchOptions) Normalization() urlnorm.Options {
	return urlnorm.Options{SortQuery: o.SortQuery, StripTracking: o.StripTracking}
}

// Normalize returns raw in the form the crawl stores URLs in under these
// options (package urlnorm's safe normalisations, and those Normalization
// selects), so that a URL a program was given (a seed, the root of a
// judged set) compares equal to the crawl's spelling of it. It fails for a
// URL urlnorm cannot read, such as one without an http or https scheme.
func (o FetchOptions) Normalize(raw string) (string, error) {
	return urlnorm.Normalize(raw, o.Normalization())
}

// NewURLGetter returns the URLGetter that FetchOptions get by default for
// detector, with a connection kept alive for each of DefaultFetchWorkers
// workers: an *http.Client that dials through the detector's dial-time
// guard, takes no proxy from the environment and follows at most
// DefaultMaxRedirects redirects. Share it between the crawler and other
// requests of the same crawl (robots.txt, say) so that they are guarded
// and pooled alike.
func NewURLGetter(detector PrivateNetworkDetector) *http.Client {
	return defaultURLGetter(detector, DefaultFetchWorkers)
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

package crawler

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Reason says what became of a URL in a crawl: crawled, or why not.
// Its String form is stable and meant for reports and logs; more reasons
// may be added (by the politeness features), so a switch over Reason should
// have a default case.
type Reason uint8

const (
	// ReasonCrawled: the page was fetched and went through every stage.
	ReasonCrawled Reason = iota
	// ReasonInvalidURL: the URL could not be parsed, or its scheme is not
	// http or https.
	ReasonInvalidURL
	// ReasonExtension: the URL's path names non-HTML content (an image,
	// archive, script...), so it was not requested.
	ReasonExtension
	// ReasonPrivateNetwork: the host, or the address it was dialled at, is
	// in a private network.
	ReasonPrivateNetwork
	// ReasonFetchError: the request failed (connection, TLS, timeout,
	// body read, request decorator...).
	ReasonFetchError
	// ReasonHTTPStatus: the server answered with a status outside 2xx.
	ReasonHTTPStatus
	// ReasonContentType: the response is not HTML.
	ReasonContentType
	// ReasonTooLarge: the body is larger than FetchOptions.MaxBodyBytes.
	ReasonTooLarge
	// ReasonCharset: the body could not be decoded to UTF-8.
	ReasonCharset
	// ReasonRobots: robots.txt forbids the URL (reported by a Gate).
	ReasonRobots
	// ReasonScope: the URL is outside the crawl's scope (reported by a
	// Gate).
	ReasonScope
	// ReasonDepth: the URL is too far from the crawl's seeds (reported by
	// a Gate).
	ReasonDepth
	// ReasonDuplicate: the URL was already crawled in this crawl (reported
	// by a Gate).
	ReasonDuplicate
	// ReasonGate: a Gate refused the URL without a more specific reason.
	ReasonGate
	// ReasonDropped: a processor dropped every copy of the page before it
	// reached the end of the pipeline.
	ReasonDropped
	// ReasonCanceled: the crawl stopped (its context was cancelled, or
	// another page's error aborted it) before the page was finished.
	ReasonCanceled
	// ReasonRedirectLoop: a redirect led back to a URL already visited in
	// the same fetch.
	ReasonRedirectLoop
	// ReasonTooManyRedirects: the fetch gave up after the maximum number of
	// redirects (see FetchOptions.MaxRedirects).
	ReasonTooManyRedirects
	// ReasonRobotsUnreachable: the host's robots.txt could not be fetched
	// (5xx, 429, a network error) even after retries, so nothing of the
	// host may be fetched; Outcome.Err says what went wrong.
	ReasonRobotsUnreachable
	// ReasonSitemap: a sitemap could not be read (malformed XML, over the
	// protocol's limits, an error status); the URL is the sitemap's, and
	// Outcome.Err says what was wrong. It is a skip, not a failure: the
	// crawl goes on without the sitemap (or with the entries read before
	// the error).
	ReasonSitemap
	// ReasonWithdrawn: the page's host was withdrawn from this crawl
	// before the page was done (Payload.Abandon): in a shared crawl,
	// another process holds the host now and crawls the page, which stays
	// due. Not a failure of this crawl, nor a skip by policy.
	ReasonWithdrawn
	numReasons
)

var reasonNames = [numReasons]string{
	ReasonCrawled:           "crawled",
	ReasonInvalidURL:        "invalid-url",
	ReasonExtension:         "non-html-extension",
	ReasonPrivateNetwork:    "private-network",
	ReasonFetchError:        "fetch-error",
	ReasonHTTPStatus:        "http-status",
	ReasonContentType:       "content-type",
	ReasonTooLarge:          "too-large",
	ReasonCharset:           "charset",
	ReasonRobots:            "robots",
	ReasonScope:             "scope",
	ReasonDepth:             "depth",
	ReasonDuplicate:         "duplicate",
	ReasonGate:              "refused",
	ReasonDropped:           "dropped",
	ReasonCanceled:          "canceled",
	ReasonRedirectLoop:      "redirect-loop",
	ReasonTooManyRedirects:  "too-many-redirects",
	ReasonRobotsUnreachable: "robots-unreachable",
	ReasonSitemap:           "sitemap",
	ReasonWithdrawn:         "withdrawn",
}

// String returns the reason's stable, kebab-case name.
func (r Reason) String() string {
	if r < numReasons {
		return reasonNames[r]
	}
	return fmt.Sprintf("reason(%d)", uint8(r))
}

// IsError reports whether an outcome with this reason is a failure, as
// opposed to a page crawled or skipped by policy or limit: a page that
// should have been crawled and was not (a fetch error, an error status, an
// undecodable body, a redirect loop or too many redirects, a crawl
// cancelled before the page was done, an unreachable robots.txt). It is
// what package engine counts as Errors.
func (r Reason) IsError() bool {
	switch r {
	case ReasonFetchError, ReasonHTTPStatus, ReasonCharset, ReasonRedirectLoop,
		ReasonTooManyRedirects, ReasonCanceled, ReasonRobotsUnreachable:
		return true
	}
	return false
}

// Outcome reports what became of one URL of a crawl. Fields that the crawl
// did not get to are zero: a URL skipped for its extension has no status.
type Outcome struct {
	// LinkID and URL identify the link as it came from the iterator.
	LinkID uuid.UUID
	URL    string
	// FinalURL is the URL the body came from, after redirects; empty when
	// nothing was fetched.
	FinalURL string
	// Reason says whether the page was crawled, or why not.
	Reason Reason
	// Err is the error behind a failure (nil for ReasonCrawled and for
	// most skips); errors.Is reaches the cause, for instance
	// context.DeadlineExceeded or privnet.ErrPrivateAddress.
	Err error
	// StatusCode and ContentType are from the response, if there was one.
	StatusCode  int
	ContentType string
	// Bytes is the number of body bytes read from the network.
	Bytes int64
	// Duration is the time from sending the request to the end of the body.
	Duration time.Duration
	// Links and NoFollowLinks count the distinct links found on the page.
	Links         int
	NoFollowLinks int
	// NoIndex is set when the page asked not to be indexed.
	NoIndex bool
	// Unchanged is set for a crawled page the server answered with 304
	// Not Modified (see Payload.Unchanged): nothing was downloaded or
	// stored again but the times.
	Unchanged bool
	// Render says whether the page was rendered (see Config.Renderer),
	// how, or why its render failed.
	Render RenderReport
}

// Crawled reports whether the page went through the whole pipeline.
func (o Outcome) Crawled() bool { return o.Reason == ReasonCrawled }

// SkipError is an error that carries the Reason a URL was not fetched. A
// Gate or a URLGetter returns one (possibly wrapped) to have the URL
// reported with that reason instead of ReasonGate or ReasonFetchError.
type SkipError struct {
	Reason Reason
	Err    error // the detail, may be nil
}

// Skip returns a *SkipError for reason with an optional detail.
func Skip(reason Reason, detail error) error {
	return &SkipError{Reason: reason, Err: detail}
}

// Error describes the skip and its detail.
func (e *SkipError) Error() string {
	if e.Err == nil {
		return "crawler: skipped: " + e.Reason.String()
	}
	return "crawler: skipped: " + e.Reason.String() + ": " + e.Err.Error()
}

// Unwrap returns the detail.
func (e *SkipError) Unwrap() error { return e.Err }

// reasonOf maps an error from a gate or a request to the reason reported.
func reasonOf(err error, fallback Reason) Reason {
	var skip *SkipError
	if errors.As(err, &skip) {
		return skip.Reason
	}
	return fallback
}

package robots

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// Getter performs HTTP requests; *http.Client satisfies it. Pass the
// crawler's client so robots.txt fetches go through the same transport,
// timeouts and private-network guard as page fetches.
type Getter interface {
	Do(req *http.Request) (*http.Response, error)
}

// Defaults of Options; see the field documentation for the reasoning.
const (
	DefaultRobotName    = "linksrus"
	DefaultUserAgent    = "linksrus/1.0 (+https://github.com/linksrus/linksrus)"
	DefaultMaxSize      = 500 << 10
	DefaultMaxRedirects = 5
)

// Options configure Fetch and FetchBody. Zero fields take the Default*
// values.
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
}

// ErrOptions is wrapped by the error of Fetch and FetchBody for invalid
// Options.
var ErrOptions = errors.New("robots: invalid options")

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
	if o.MaxSize < 0 || o.MaxRedirects < 0 {
		return fmt.Errorf("%w: negative limit in %+v", ErrOptions, *o)
	}
	if o.MaxSize == 0 {
		o.MaxSize = DefaultMaxSize
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	return nil
}

// Basis says how a robots.txt decision was reached, for crawl reports. Its
// values are stored (a shared crawl keeps them in its robots.txt cache),
// so they never change.
type Basis uint8

// The possible values of Basis.
const (
	// BasisRules: the origin's robots.txt was fetched and its rules apply.
	BasisRules Basis = 0
	// BasisUnavailable: robots.txt answered 4xx or redirected too often;
	// everything is allowed.
	BasisUnavailable Basis = 2
	// BasisUnreachable: robots.txt answered 5xx or 429 or could not be
	// fetched; everything is disallowed until it is fetched again.
	BasisUnreachable Basis = 3
)

// String describes b for crawl reports.
func (b Basis) String() string {
	switch b {
	case BasisRules:
		return "robots.txt rules"
	case BasisUnavailable:
		return "robots.txt unavailable"
	case BasisUnreachable:
		return "robots.txt unreachable"
	}
	return fmt.Sprintf("robots.Basis(%d)", uint8(b))
}

var (
	allowAll    = &Rules{allowAll: true, specificDelay: -1, globalDelay: -1}
	disallowAll = &Rules{disallowAll: true, specificDelay: -1, globalDelay: -1}
)

// Fetch retrieves origin's ("https://example.com") robots.txt with get,
// following redirects itself (so it works with clients that do not follow
// them), and maps the outcome to rules per RFC 9309 2.3.1 (see the package
// documentation): the rules for opts.RobotName and the basis of the
// decision. When the file is unreachable (BasisUnreachable: 5xx, 429, a
// network error, a body cut short) the rules disallow everything and err
// says what went wrong, so that a caller can retry and report it; err is
// nil otherwise. Zero fields of opts take their defaults.
func Fetch(ctx context.Context, get Getter, origin string, opts Options) (*Rules, Basis, error) {
	if err := opts.setDefaults(); err != nil {
		return disallowAll, BasisUnreachable, err
	}
	body, basis, err := FetchBody(ctx, get, origin, opts)
	return RulesFor(basis, body, opts.RobotName), basis, err
}

// RulesFor returns the rules that a fetch with this outcome stands for:
// the body parsed for name when basis is BasisRules, everything allowed
// when the file is unavailable, nothing when it is unreachable. It turns
// a decision kept elsewhere (FetchBody's body, in a shared cache) back
// into rules.
func RulesFor(basis Basis, body []byte, name string) *Rules {
	switch basis {
	case BasisRules:
		return Parse(body, name)
	case BasisUnavailable:
		return allowAll
	}
	return disallowAll
}

// FetchBody is Fetch without the parsing: it returns the file's body (at
// most opts.MaxSize bytes, cut at the last complete line) with the basis
// of the decision; the body is nil unless the basis is BasisRules. It is
// for callers that keep the file itself, to share it between processes.
func FetchBody(ctx context.Context, get Getter, origin string, opts Options) ([]byte, Basis, error) {
	if err := opts.setDefaults(); err != nil {
		return nil, BasisUnreachable, err
	}
	target := origin + "/robots.txt"
	for hop := 0; ; hop++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err != nil {
			return nil, BasisUnreachable, fmt.Errorf("robots: fetch %s: %w", target, err)
		}
		req.Header.Set("User-Agent", opts.UserAgent)
		resp, err := get.Do(req)
		if err != nil {
			return nil, BasisUnreachable, fmt.Errorf("robots: fetch %s: %w", target, err)
		}
		code := resp.StatusCode
		switch {
		case code >= 200 && code < 300:
			body, err := readLimited(resp.Body, opts.MaxSize)
			_ = resp.Body.Close()
			if err != nil { // a truncated file could drop a Disallow
				return nil, BasisUnreachable, fmt.Errorf("robots: read %s: %w", target, err)
			}
			return body, BasisRules, nil
		case code >= 300 && code < 400:
			loc := resp.Header.Get("Location")
			discard(resp.Body)
			if loc == "" || hop >= opts.MaxRedirects {
				return nil, BasisUnavailable, nil
			}
			next, err := req.URL.Parse(loc)
			if err != nil || (next.Scheme != "http" && next.Scheme != "https") || next.Host == "" {
				return nil, BasisUnavailable, nil
			}
			target = next.String()
		case code >= 400 && code < 500 && code != http.StatusTooManyRequests:
			discard(resp.Body)
			return nil, BasisUnavailable, nil
		default:
			discard(resp.Body)
			err := &StatusError{URL: target, StatusCode: code, RetryAfter: resp.Header.Get("Retry-After")}
			return nil, BasisUnreachable, err
		}
	}
}

// StatusError is the error of a robots.txt fetch answered with a status
// that makes the file unreachable (429, 5xx).
type StatusError struct {
	URL        string
	StatusCode int
	// RetryAfter is the response's Retry-After header, if any.
	RetryAfter string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("robots: %s answered %d %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode))
}

// readLimited reads at most limit bytes of r; if there is more, the text
// is cut after its last complete line so that no rule is half-read.
func readLimited(r io.Reader, limit int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > limit {
		body = body[:limit]
		if i := bytes.LastIndexAny(body, "\r\n"); i >= 0 {
			body = body[:i+1]
		}
	}
	return body, nil
}

// discard reads a little of an unused body before closing it, so the
// connection can be reused for the next request to the host.
func discard(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, 4<<10)
	_ = body.Close()
}

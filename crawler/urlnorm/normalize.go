package urlnorm

import (
	"fmt"
	"net/url"
	"strings"
)

// Options select the optional normalisations. The zero value applies only
// the ones that never change which resource a URL names.
type Options struct {
	// SortQuery sorts query parameters by name. The sort is stable, so
	// repeated parameters ("a=2&a=1") keep their relative order, which many
	// servers give meaning to. Empty parameters ("a=1&&b=2") are dropped.
	// Off by default: a few servers depend on parameter order.
	SortQuery bool
	// StripTracking removes the analytics parameters utm_* (any case),
	// gclid and fbclid, which name the same page under endless variants.
	// Empty parameters are dropped too. Off by default because it rewrites
	// the query a server receives.
	StripTracking bool
}

// stackBuf is the size of the on-stack buffer the result is built in;
// longer URLs fall back to a heap buffer.
const stackBuf = 512

// Normalize returns the canonical form of the absolute http or https URL raw,
// as described in the package documentation. Leading and trailing spaces and
// control characters (common around links in HTML) are ignored. It returns an
// error wrapping one of the package's sentinel errors when raw is not an
// absolute http(s) URL with a valid host and port.
func Normalize(raw string, opts Options) (string, error) {
	var stack [stackBuf]byte
	b, err := appendNormalized(stack[:0], raw, opts)
	if err != nil {
		return "", fmt.Errorf("normalise URL %q: %w", clip(raw), err)
	}
	// The comparison does not allocate; already canonical input (the common
	// case for URLs read back from storage) is returned as is.
	if string(b) == raw {
		return raw, nil
	}
	return string(b), nil
}

// NormalizeURL is Normalize for an already parsed URL, such as the result of
// resolving a link against its page with url.URL.ResolveReference.
func NormalizeURL(u *url.URL, opts Options) (string, error) {
	if u == nil {
		return "", fmt.Errorf("normalise URL: %w", ErrNotAbsolute)
	}
	return Normalize(u.String(), opts)
}

// appendNormalized appends the canonical form of raw to b.
func appendNormalized(b []byte, raw string, opts Options) ([]byte, error) {
	s := trimSpaceControl(raw)
	colon := schemeEnd(s)
	if colon < 0 {
		return b, ErrNotAbsolute
	}
	var defaultPort string
	switch scheme := s[:colon]; {
	case strings.EqualFold(scheme, "http"):
		b = append(b, "http://"...)
		defaultPort = "80"
	case strings.EqualFold(scheme, "https"):
		b = append(b, "https://"...)
		defaultPort = "443"
	default:
		return b, fmt.Errorf("%w %q", ErrUnsupportedScheme, clip(scheme))
	}
	rest := s[colon+1:]
	if !strings.HasPrefix(rest, "//") {
		return b, ErrMissingHost
	}
	rest = rest[2:]

	authEnd := strings.IndexAny(rest, "/?#")
	if authEnd < 0 {
		authEnd = len(rest)
	}
	authority := rest[:authEnd]
	rest = rest[authEnd:]
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	path, query, hasQuery := strings.Cut(rest, "?")

	var err error
	if b, err = appendAuthority(b, authority, defaultPort); err != nil {
		return b, err
	}

	pathStart := len(b)
	if path == "" {
		b = append(b, '/')
	} else {
		b = appendEscaped(b, path, &pathChars)
		b = b[:pathStart+len(RemoveDotSegments(b[pathStart:]))]
	}

	if hasQuery && query != "" {
		b = append(b, '?')
		queryStart := len(b)
		b = appendEscaped(b, query, &queryChars)
		if opts.SortQuery || opts.StripTracking {
			b = rewriteQuery(b, queryStart, opts)
		}
		if len(b) == queryStart { // every parameter was removed
			b = b[:queryStart-1]
		}
	}
	return b, nil
}

// schemeEnd returns the index of the colon ending a syntactically valid
// scheme at the start of s (RFC 3986 3.1), or -1.
func schemeEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return -1
			}
		case c == ':':
			if i == 0 {
				return -1
			}
			return i
		default:
			return -1
		}
	}
	return -1
}

// trimSpaceControl drops leading and trailing ASCII spaces and control
// characters, as browsers do for href values.
func trimSpaceControl(s string) string {
	for len(s) > 0 && s[0] <= ' ' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] <= ' ' {
		s = s[:len(s)-1]
	}
	return s
}

// clip shortens s for error messages, so a megabyte-long bogus link does not
// end up in every log line.
func clip(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}

package urlnorm

import (
	"bytes"
	"errors"
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
// as described in the package documentation. raw is read as browsers read
// it (see Resolve), without a base. It returns an error wrapping one of the
// package's sentinel errors when raw is not an absolute http(s) URL with a
// valid host and port.
func Normalize(raw string, opts Options) (string, error) {
	var stack [stackBuf]byte
	b, err := appendURL(stack[:0], "", false, raw, opts)
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

// Resolve returns the canonical form (see Normalize) of the URL that ref,
// a link found on the page at base, names: ref is parsed against base as
// browsers parse a link, following the WHATWG URL standard's parser for
// the http and https schemes where it departs from RFC 3986 (and net/url):
//
//   - leading and trailing spaces and control characters are ignored,
//     tabs and newlines anywhere are removed;
//   - a backslash is a slash, except in the query;
//   - "http:x" on an http page is relative ("x"); "https:x" there, or
//     "http:" followed by any number of slashes on an https page, has an
//     authority ("https://x/"); "///x" is "//x";
//   - a scheme starts with a letter, so "12:30.html" and ":x" are paths;
//   - user information, whatever its characters, and the fragment are
//     dropped; a '%' that starts no escape is a literal '%';
//   - a host that ends in a number is an IPv4 address in the spellings
//     browsers read ("0x7f.1", "2130706433") or, if it is none, an error.
//
// An empty or fragment-only ref names base itself. base is consulted only
// when ref is not an absolute http(s) URL, and must then be one.
func Resolve(base, ref string, opts Options) (string, error) {
	var stack [stackBuf]byte
	b, err := appendURL(stack[:0], base, true, ref, opts)
	if err != nil {
		return "", fmt.Errorf("resolve URL %q against %q: %w", clip(ref), clip(base), err)
	}
	if string(b) == ref {
		return ref, nil
	}
	return string(b), nil
}

// NormalizeURL is Normalize for an already parsed URL.
func NormalizeURL(u *url.URL, opts Options) (string, error) {
	if u == nil {
		return "", fmt.Errorf("normalise URL: %w", ErrNotAbsolute)
	}
	return Normalize(u.String(), opts)
}

// reference is a URL, or a reference relative to a base, split the way the
// WHATWG URL parser splits one for the http(s) schemes. Its parts are as in
// the input: neither escaped nor checked yet.
type reference struct {
	// scheme is "http" or "https" for a URL with an authority of its
	// own, "" for a reference that takes its scheme from the base.
	scheme       string
	hasAuthority bool
	authority    string // user information, host and port
	path         string // backslashes not yet read as slashes
	query        string
	hasQuery     bool
}

// splitReference splits s (already cleaned, see cleanInput) on a page
// whose scheme is baseScheme ("" without a base).
func splitReference(s, baseScheme string) (reference, error) {
	var r reference
	if colon := schemeEnd(s); colon >= 0 {
		switch scheme := s[:colon]; {
		case strings.EqualFold(scheme, "http"):
			r.scheme = "http"
		case strings.EqualFold(scheme, "https"):
			r.scheme = "https"
		default:
			return r, fmt.Errorf("%w %q", ErrUnsupportedScheme, clip(scheme))
		}
		s = s[colon+1:]
		if r.scheme == baseScheme {
			// The base's own scheme: relative unless two slashes
			// follow, as if it were absent.
			r.scheme = ""
		} else {
			// An authority follows, whatever the slashes.
			r.hasAuthority = true
			s = trimSlashes(s)
		}
	} else if baseScheme == "" {
		return r, ErrNotAbsolute
	}
	if !r.hasAuthority && len(s) >= 2 && isSlash(s[0]) && isSlash(s[1]) {
		r.hasAuthority = true
		s = trimSlashes(s)
	}
	if r.hasAuthority {
		end := 0
		for end < len(s) && !authorityEnds[s[end]] {
			end++
		}
		r.authority, s = s[:end], s[end:]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	r.path, r.query, r.hasQuery = strings.Cut(s, "?")
	return r, nil
}

func isSlash(c byte) bool { return c == '/' || c == '\\' }

// trimSlashes drops the slashes and backslashes s starts with.
func trimSlashes(s string) string {
	for len(s) > 0 && isSlash(s[0]) {
		s = s[1:]
	}
	return s
}

// authorityEnds marks the bytes that end the authority of an http(s) URL.
var authorityEnds = [256]bool{'/': true, '\\': true, '?': true, '#': true}

// appendURL appends the canonical form of the URL ref names, relative to
// base if hasBase.
func appendURL(b []byte, base string, hasBase bool, ref string, opts Options) ([]byte, error) {
	s := cleanInput(ref)
	baseScheme := ""
	if hasBase {
		baseScheme = httpScheme(base)
	}
	r, err := splitReference(s, baseScheme)
	if err != nil {
		if errors.Is(err, ErrNotAbsolute) && hasBase {
			// A relative reference on an unusable base: say why.
			if _, berr := appendURL(b, "", false, base, Options{}); berr != nil {
				return b, fmt.Errorf("base: %w", berr)
			}
		}
		return b, err
	}
	if r.hasAuthority {
		scheme := r.scheme
		if scheme == "" {
			scheme = baseScheme
		}
		b = append(b, scheme...)
		b = append(b, "://"...)
		defaultPort := "80"
		if scheme == "https" {
			defaultPort = "443"
		}
		if b, err = appendAuthority(b, r.authority, defaultPort); err != nil {
			return b, err
		}
		b = appendPath(b, len(b), r.path)
		return appendQuery(b, r.query, r.hasQuery, opts), nil
	}

	// Relative to the base, which is read in canonical form.
	var baseBuf [stackBuf]byte
	cb, err := appendURL(baseBuf[:0], "", false, base, Options{})
	if err != nil {
		return b, fmt.Errorf("base: %w", err)
	}
	pathStart := bytes.IndexByte(cb[len(baseScheme)+3:], '/') + len(baseScheme) + 3
	basePath, baseQuery, baseHasQuery := bytes.Cut(cb[pathStart:], []byte("?"))
	b = append(b, cb[:pathStart]...)
	start := len(b)
	switch {
	case r.path != "" && isSlash(r.path[0]):
		b = appendPath(b, start, r.path)
	case r.path != "":
		b = append(b, basePath[:bytes.LastIndexByte(basePath, '/')+1]...)
		b = appendPath(b, start, r.path)
	default:
		b = append(b, basePath...)
		if !r.hasQuery {
			return appendQuery(b, string(baseQuery), baseHasQuery, opts), nil
		}
	}
	return appendQuery(b, r.query, r.hasQuery, opts), nil
}

// appendPath appends the path p, escaped, to b and resolves the dot
// segments of the path that starts at b[start:]; an empty path is "/".
func appendPath(b []byte, start int, p string) []byte {
	b = appendEscaped(b, p, &pathChars, true)
	if len(b) == start {
		// Not left to RemoveDotSegments, which would grow b[start:]
		// beyond b's capacity into an array of its own.
		return append(b, '/')
	}
	return b[:start+len(RemoveDotSegments(b[start:]))]
}

// appendQuery appends "?" and the escaped query, unless it is empty, and
// applies the optional query rewrites.
func appendQuery(b []byte, query string, hasQuery bool, opts Options) []byte {
	if !hasQuery || query == "" {
		return b
	}
	b = append(b, '?')
	queryStart := len(b)
	b = appendEscaped(b, query, &queryChars, false)
	if opts.SortQuery || opts.StripTracking {
		b = rewriteQuery(b, queryStart, opts)
	}
	if len(b) == queryStart { // every parameter was removed
		b = b[:queryStart-1]
	}
	return b
}

// httpScheme returns the scheme of the URL raw in lower case if it is
// http or https, or "".
func httpScheme(raw string) string {
	s := trimSpaceControl(raw)
	colon := schemeEnd(s)
	switch {
	case colon < 0:
		return ""
	case strings.EqualFold(s[:colon], "http"):
		return "http"
	case strings.EqualFold(s[:colon], "https"):
		return "https"
	}
	return ""
}

// cleanInput does to s what browsers do before parsing a URL: leading and
// trailing spaces and control characters are stripped, tabs and newlines
// removed wherever they are.
func cleanInput(s string) string {
	s = trimSpaceControl(s)
	// Three vectorised scans beat one loop over the bytes.
	i := len(s)
	for _, c := range [...]byte{'\t', '\n', '\r'} {
		if j := strings.IndexByte(s[:i], c); j >= 0 {
			i = j
		}
	}
	if i == len(s) {
		return s
	}
	// Byte by byte: strings.Map would turn invalid UTF-8 into U+FFFD.
	b := make([]byte, i, len(s))
	copy(b, s[:i])
	for ; i < len(s); i++ {
		if c := s[i]; !isTabOrNewline(c) {
			b = append(b, c)
		}
	}
	return string(b)
}

func isTabOrNewline(c byte) bool { return c == '\t' || c == '\n' || c == '\r' }

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

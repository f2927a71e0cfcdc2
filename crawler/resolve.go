package crawler

import (
	"net/url"
	"strings"
)

// MaxURLLength is the longest link the extractor keeps. Longer URLs are
// almost always generated traps or abuse, and some stores index URLs.
const MaxURLLength = 2048

// resolveURL resolves href, as found in a page, against base and returns the
// absolute URL to record, without fragment or user info. It returns false
// for links that are not http(s) pages: empty, fragment-only, other
// schemes, no host, unparsable, or longer than MaxURLLength.
func resolveURL(base *url.URL, href string) (string, bool) {
	s, u := resolveLink(base, href)
	return s, u != nil
}

// resolveLink is resolveURL that also returns the link parsed back from
// its string form (nil when the link is dropped). Parsing it back is how
// links that net/url would print but not read again ("http://::") are
// caught; the parsed form then serves the later checks.
func resolveLink(base *url.URL, href string) (string, *url.URL) {
	href = cleanHref(href)
	if href == "" || href[0] == '#' || len(href) > MaxURLLength {
		return "", nil
	}
	ref, err := url.Parse(href)
	if err != nil {
		return "", nil
	}
	abs := base.ResolveReference(ref)
	if abs.Scheme != "http" && abs.Scheme != "https" || abs.Host == "" || abs.Opaque != "" {
		return "", nil
	}
	abs.Fragment, abs.RawFragment = "", ""
	abs.User = nil // credentials do not belong in a graph, and "a@b" hosts deceive
	// net/url escapes the path but keeps the query raw; escape what a
	// browser would, so stored URLs are ASCII and never invalid UTF-8.
	abs.RawQuery = escapeQuery(abs.RawQuery)
	s := abs.String()
	if len(s) > MaxURLLength {
		return "", nil
	}
	back, err := url.Parse(s)
	if err != nil || back.Host == "" || back.String() != s {
		return "", nil
	}
	return s, back
}

// cleanHref does what browsers do to an attribute value before parsing it
// as a URL: strip leading and trailing C0 controls and spaces, remove tabs
// and newlines anywhere, and read backslashes as slashes (WHATWG URL
// standard, for http and https).
func cleanHref(href string) string {
	href = strings.TrimFunc(href, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(href, "\t\n\r\\") {
		href = strings.Map(func(r rune) rune {
			switch r {
			case '\t', '\n', '\r':
				return -1
			case '\\':
				return '/'
			}
			return r
		}, href)
	}
	return href
}

// escapeQuery percent-encodes the bytes of a raw query that may not appear
// in a URL: controls, space, and everything outside ASCII.
func escapeQuery(q string) string {
	n := 0
	for i := 0; i < len(q); i++ {
		if c := q[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' {
			n++
		}
	}
	if n == 0 {
		return q
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(q)+2*n)
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' {
			b = append(b, '%', hex[c>>4], hex[c&15])
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

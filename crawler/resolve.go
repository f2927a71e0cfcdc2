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
	href = cleanHref(href)
	if href == "" || href[0] == '#' || len(href) > MaxURLLength {
		return "", false
	}
	ref, err := url.Parse(href)
	if err != nil {
		return "", false
	}
	abs := base.ResolveReference(ref)
	if abs.Scheme != "http" && abs.Scheme != "https" || abs.Host == "" || abs.Opaque != "" {
		return "", false
	}
	abs.Fragment, abs.RawFragment = "", ""
	abs.User = nil // credentials do not belong in a graph, and "a@b" hosts deceive
	s := abs.String()
	if len(s) > MaxURLLength {
		return "", false
	}
	return s, true
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

package crawler

import (
	"bytes"
	"net/url"
	"strings"

	"github.com/linksrus/linksrus/crawler/urlnorm"
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
	href = specialSchemeRef(base, cleanHref(href))
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

// specialSchemeRef rewrites a reference the way the WHATWG URL standard
// parses it against an http(s) base, where RFC 3986 (net/url) differs,
// into the RFC 3986 reference that means the same:
//
//   - "http:other.html" on an http page (the same special scheme, no
//     "//") is relative: "other.html"; "http:/x" is "/x";
//   - "https:host/p" on an http page (another special scheme) has an
//     authority however many slashes follow: "https://host/p";
//   - "///x", or "http:////x", ignores the extra slashes: "//x".
//
// cleanHref has already turned backslashes into slashes, so "/\evil.com/"
// arrives as "//evil.com/". Other references are returned unchanged.
func specialSchemeRef(base *url.URL, href string) string {
	if base.Scheme != "http" && base.Scheme != "https" {
		return href
	}
	if strings.HasPrefix(href, "//") {
		return "//" + strings.TrimLeft(href, "/")
	}
	colon := strings.IndexByte(href, ':')
	if colon <= 0 || !isScheme(href[:colon]) {
		return href
	}
	scheme := strings.ToLower(href[:colon])
	if scheme != "http" && scheme != "https" {
		return href
	}
	rest := href[colon+1:]
	if scheme == base.Scheme && !strings.HasPrefix(rest, "//") {
		return rest // "http:" alone is the page itself, as an empty href
	}
	return scheme + "://" + strings.TrimLeft(rest, "/")
}

// isScheme reports whether s is a URL scheme: a letter, then letters,
// digits, '+', '-' or '.'.
func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
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

// pageBase is the URL a page's relative links resolve against, with the
// parts resolveFast needs worked out once per page rather than per link.
type pageBase struct {
	url *url.URL
	// origin ("https://host:port") and dir (the path up to and including
	// its last '/') are url's parts in canonical form. origin is empty, and
	// the fast path off, when url is not canonical or its path holds
	// anything but unreserved characters and single slashes.
	origin, dir string
	// hostChecked and hostKept cache the private-address verdict on url's
	// host, which every link resolveFast produces shares.
	hostChecked, hostKept bool
}

// newPageBase prepares u for resolveFast. Page URLs come from the link
// graph, which stores only normalised links, so the fast path is almost
// always on.
func newPageBase(u *url.URL) *pageBase {
	pb := &pageBase{url: u}
	if u.Scheme != "http" && u.Scheme != "https" || u.User != nil || u.Opaque != "" ||
		u.Host == "" || u.RawPath != "" || !strings.HasPrefix(u.Path, "/") ||
		strings.Contains(u.Path, "//") {
		return pb
	}
	for i := 0; i < len(u.Path); i++ {
		if !fastPathChars[u.Path[i]] {
			return pb
		}
	}
	origin := u.Scheme + "://" + u.Host
	whole := origin + u.Path
	if n, err := urlnorm.Normalize(whole, urlnorm.Options{}); err != nil || n != whole {
		return pb
	}
	pb.origin = origin
	pb.dir = u.Path[:strings.LastIndexByte(u.Path, '/')+1]
	return pb
}

// keepHost reports whether links to the base's own host pass the
// private-address filter, asking the detector once per page.
func (pb *pageBase) keepHost(d PrivateNetworkDetector) bool {
	if !pb.hostChecked {
		private, err := d.IsPrivate(pb.url.Hostname())
		pb.hostChecked, pb.hostKept = true, err == nil && !private
	}
	return pb.hostKept
}

// fastResult says what resolveFast did with a link.
type fastResult int

const (
	fastUnsupported fastResult = iota // not a shape resolveFast handles: use resolveLink
	fastDropped                       // resolveLink would drop it too
	fastResolved                      // the canonical link was appended
)

var (
	// fastPathChars are the bytes resolveFast accepts in a path: unreserved
	// characters and '/', which net/url and urlnorm both leave as they are.
	fastPathChars = makeCharSet("/")
	// fastQueryChars are the bytes it accepts in a query: those urlnorm
	// leaves unencoded, which net/url never touches in a query either.
	fastQueryChars = makeCharSet("/?:@!$&()*+,;=")
)

// makeCharSet returns the unreserved characters of RFC 3986 plus extra.
func makeCharSet(extra string) *[256]bool {
	var t [256]bool
	for c := range 256 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~'
	}
	for i := range len(extra) {
		t[extra[i]] = true
	}
	return &t
}

// resolveFast resolves href against the page base as resolveLink followed
// by urlnorm.Normalize (zero Options) would, without either: no url.URL, no
// intermediate strings, nothing allocated beyond growing dst. It handles
// the shape nearly every link on a real page has: a relative or
// root-relative path of unreserved characters (dot segments allowed), an
// optional query of characters that need no escaping, an optional fragment
// of printable ASCII. Anything else, including network-path and absolute
// references, is fastUnsupported and takes the general path.
//
// It appends the canonical link to dst and returns it with the offset in it
// where the path ends. The tests check it against the general path on the
// hostile table and under fuzzing.
func (pb *pageBase) resolveFast(dst, href []byte) ([]byte, int, fastResult) {
	if pb.origin == "" {
		return dst, 0, fastUnsupported
	}
	href = bytes.TrimFunc(href, func(r rune) bool { return r <= ' ' })
	if len(href) == 0 || href[0] == '#' {
		return dst, 0, fastDropped
	}
	if len(href) > MaxURLLength {
		// Tabs and newlines inside it may not count (cleanHref removes
		// them): the general path judges the length.
		return dst, 0, fastUnsupported
	}
	i := 0
	for ; i < len(href) && fastPathChars[href[i]]; i++ {
		// Empty segments are where net/url's dot-segment removal and RFC
		// 3986's part ways; leave them to the general path.
		if href[i] == '/' && i > 0 && href[i-1] == '/' {
			return dst, 0, fastUnsupported
		}
	}
	pathEnd := i
	if pathEnd == 0 || href[0] == '/' && pathEnd > 1 && href[1] == '/' {
		return dst, 0, fastUnsupported
	}
	qStart := i
	if i < len(href) && href[i] == '?' {
		i++
		qStart = i
		for i < len(href) && fastQueryChars[href[i]] {
			i++
		}
	}
	qEnd := i
	if i < len(href) {
		if href[i] != '#' {
			return dst, 0, fastUnsupported
		}
		// net/url refuses control bytes and malformed escapes even in a
		// fragment; leave any doubt to it.
		for _, c := range href[i+1:] {
			if c <= ' ' || c >= 0x7f || c == '%' {
				return dst, 0, fastUnsupported
			}
		}
	}

	dst = append(dst, pb.origin...)
	pathStart := len(dst)
	if href[0] != '/' {
		dst = append(dst, pb.dir...)
	}
	dst = append(dst, href[:pathEnd]...)
	dst = dst[:pathStart+len(urlnorm.RemoveDotSegments(dst[pathStart:]))]
	end := len(dst)
	if qEnd > qStart { // an empty query is dropped, as urlnorm does
		dst = append(dst, '?')
		dst = append(dst, href[qStart:qEnd]...)
	}
	if len(dst) > MaxURLLength {
		return dst, 0, fastDropped
	}
	return dst, end, fastResolved
}

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

// maxHrefLength bounds the hrefs that are parsed at all: one this long is
// junk or a trap, even if whitespace or dot segments would shorten it.
const maxHrefLength = 4 * MaxURLLength

// resolveLink returns the link href names on the page at base, in
// canonical form for opts (see urlnorm.Resolve, which reads it as browsers
// do), and parsed for the checks that follow; "" and nil for a link the
// crawler does not record: one to the page itself (see namesPageItself),
// to another scheme than http(s), that browsers would not load, to a host
// no resolver looks up, or longer than MaxURLLength.
func resolveLink(base, href string, opts urlnorm.Options) (string, *url.URL) {
	if len(href) > maxHrefLength || namesPageItself(base, href) {
		return "", nil
	}
	link, err := urlnorm.Resolve(base, href, opts)
	if err != nil || len(link) > MaxURLLength {
		return "", nil
	}
	u, err := url.Parse(link)
	if err != nil || u.Host == "" {
		return "", nil // urlnorm's output always parses: a safety net
	}
	return link, u
}

// namesPageItself reports whether href, on the page at base, is empty or a
// fragment alone once browsers have cleaned it (spaces and controls around
// it, tabs and newlines in it), possibly after the page's own scheme
// ("http:#top" on an http page): a reference to the page itself, which the
// crawler does not record as a link.
func namesPageItself(base, href string) bool {
	s := strings.TrimFunc(href, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	}
	if colon := strings.IndexByte(base, ':'); colon > 0 && len(s) > colon &&
		s[colon] == ':' && strings.EqualFold(s[:colon], base[:colon]) {
		s = s[colon+1:]
	}
	return s == "" || s[0] == '#'
}

// pageBase is the URL a page's relative links resolve against, with the
// parts resolveFast needs worked out once per page rather than per link.
type pageBase struct {
	url *url.URL
	raw string // url.String(), which links are resolved against
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
	pb := &pageBase{url: u, raw: u.String()}
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
	// characters and '/', which urlnorm leaves as they are.
	fastPathChars = makeCharSet("/")
	// fastQueryChars are the bytes it accepts in a query: those urlnorm
	// leaves unencoded.
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

// resolveFast resolves href against the page base as resolveLink with zero
// Options would, without it: no url.URL, no intermediate strings, nothing
// allocated beyond growing dst. It handles the shape nearly every link on a
// real page has: a relative or root-relative path of unreserved characters
// (dot segments allowed), an optional query of characters that need no
// escaping, an optional fragment. Anything else, including network-path
// and absolute references, is fastUnsupported and takes the general path.
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
		// Its canonical form may be shorter (dot segments): the general
		// path judges the length.
		return dst, 0, fastUnsupported
	}
	i := 0
	for ; i < len(href) && fastPathChars[href[i]]; i++ {
		// Empty segments are rare, and "//" at the start names a host:
		// leave them to the general path.
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
	if i < len(href) && href[i] != '#' { // the fragment, whatever it holds, is dropped
		return dst, 0, fastUnsupported
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

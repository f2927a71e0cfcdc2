package crawler

import (
	"net/netip"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler/privnet"
)

// Link resolution on http(s) pages follows the WHATWG URL standard, as
// browsers do, where it departs from RFC 3986. The cases are written from
// the standard's parsing rules and examples (special schemes, backslashes,
// extra slashes).
func TestResolveLikeBrowsers(t *testing.T) {
	for _, c := range []resolveCase{
		{"http://example.org/foo/bar", "http:other.html", "http://example.org/foo/other.html"},
		{"http://example.org/foo/bar", "HTTP:other.html", "http://example.org/foo/other.html"},
		{"http://example.org/foo/bar", "http:/example.com/", "http://example.org/example.com/"},
		{"http://example.org/foo/bar", "http:", ""}, // the page itself, as an empty href
		{"http://example.org/foo/bar", "https:test.example", "https://test.example/"},
		{"http://example.org/foo/bar", "https:/x.example/y", "https://x.example/y"},
		{"https://example.org/foo/bar", "http:x.example", "http://x.example/"},
		{"http://example.org/foo/bar", "/\\evil.com/", "http://evil.com/"},
		{"http://example.org/foo/bar", "\\\\server.example\\file", "http://server.example/file"},
		{"http://example.org/foo/bar", "///x.example", "http://x.example/"},
		{"http://example.org/foo/bar", "////x.example/y", "http://x.example/y"},
		{"http://example.org/foo/bar", "http:////x.example/y", "http://x.example/y"},
		{"http://example.org/foo/bar", "//x.example", "http://x.example/"},
		{"http://example.org/foo/bar", "http:\\\\www.google.com\\foo", "http://www.google.com/foo"},
		{"http://example.org/foo/bar", "\\x\\hello", "http://example.org/x/hello"},
		{"http://example.org/foo/bar", "ftp:x", ""}, // not a page we fetch
		{"http://example.org/foo/bar", "mailto:a@b", ""},
		{"http://example.org/foo/bar", "a:b", ""}, // a scheme of its own
	} {
		checkExtracted(t, NewLinkExtractor(nil), c.base, c.href, c.want)
	}
}

// checkExtracted fails unless the link href on the page at base is
// extracted as want ("": dropped).
func checkExtracted(t *testing.T, e *LinkExtractor, base, href, want string) {
	t.Helper()
	b, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPayload([16]byte{1}, base, time.Time{})
	defer p.MarkAsProcessed()
	p.Body = []byte(`<a href="` + htmlAttr(href) + `">x</a>`)
	e.extract(p, b)
	var wantLinks []string
	if want != "" {
		wantLinks = []string{want}
	}
	if got := slices.Concat(p.Links, p.NoFollowLinks); !slices.Equal(got, wantLinks) {
		t.Errorf("%q on %s: links %q, want %q", href, base, got, wantLinks)
	}
}

type resolveCase struct{ base, href, want string }

func checkResolveCases(t *testing.T, e *LinkExtractor, cases []resolveCase) {
	t.Helper()
	for _, c := range cases {
		checkExtracted(t, e, c.base, c.href, c.want)
	}
}

const page = "http://example.org/foo/bar"

// A '%' that starts no escape is kept as a literal '%' (browsers send it
// as it is; the canonical form writes it "%25"), not a reason to drop the
// link. In the fragment it does not matter at all: the fragment goes.
func TestResolveStrayPercent(t *testing.T) {
	checkResolveCases(t, NewLinkExtractor(allowAll{}), []resolveCase{
		{page, "/sale-50%-off.html", "http://example.org/sale-50%25-off.html"},
		{page, "sale-50%-off.html", "http://example.org/foo/sale-50%25-off.html"},
		{page, "http://example.com/foo%", "http://example.com/foo%25"},
		{page, "http://example.com/foo%2", "http://example.com/foo%252"},
		{page, "http://example.com/foo%2zbar", "http://example.com/foo%252zbar"},
		{page, "http://example.com/foo/%2e%2", "http://example.com/foo/.%252"},
		{page, "?q=100%", "http://example.org/foo/bar?q=100%25"},
		{page, "/x#50%", "http://example.org/x"},
		{page, "http://example.org/test?a#%GH", "http://example.org/test?a"},
		{page, "%zz%41", "http://example.org/foo/%25zzA"},
	})
}

// A relative reference whose first segment holds ':' or '[' is a path, as
// in browsers: a scheme starts with a letter and holds no '[' or ':', and
// a same-scheme prefix ("http:") on an http page is relative.
func TestResolveColonInFirstSegment(t *testing.T) {
	checkResolveCases(t, NewLinkExtractor(allowAll{}), []resolveCase{
		{page, "12:30-meeting.html", "http://example.org/foo/12:30-meeting.html"},
		{page, "./12:30-meeting.html", "http://example.org/foo/12:30-meeting.html"},
		{page, ":foo.com/", "http://example.org/foo/:foo.com/"},
		{page, "\t   :foo.com   \n", "http://example.org/foo/:foo.com"},
		{page, ":foo.com\\", "http://example.org/foo/:foo.com/"},
		{page, ":", "http://example.org/foo/:"},
		{page, ":a", "http://example.org/foo/:a"},
		{page, ":#", "http://example.org/foo/:"},
		{page, ":23", "http://example.org/foo/:23"},
		{page, "::23", "http://example.org/foo/::23"},
		{page, "/:23", "http://example.org/:23"},
		{page, "http::@c:29", "http://example.org/foo/:@c:29"},
		{page, "[61:24:74]:98", "http://example.org/foo/%5B61:24:74%5D:98"},
		{page, "http:[61:27]/:foo", "http://example.org/foo/%5B61:27%5D/:foo"},
		{page, "1:2", "http://example.org/foo/1:2"},
		{page, "-x:y", "http://example.org/foo/-x:y"},
		{page, "a:b", ""},     // a scheme of its own
		{page, "a1+.-:b", ""}, // a scheme too
		{"https://example.org/foo/bar", "http:x", "http://x/"}, // another special scheme: an authority follows
	})
}

// User information is dropped whatever it holds: the WHATWG parser
// percent-encodes what net/url refuses there, and the host is what
// follows the last '@' of the authority.
func TestResolveUserinfoDropped(t *testing.T) {
	checkResolveCases(t, NewLinkExtractor(allowAll{}), []resolveCase{
		{page, "http://&a:foo(b]c@d:2/", "http://d:2/"},
		{page, "http://::@c@d:2", "http://d:2/"},
		{page, "http://foo.com:b@d/", "http://d/"},
		{page, "http://foo:💩@example.com/bar", "http://example.com/bar"},
		{page, "http://`{}:`{}@h/`{}?`{}", "http://h/%60%7B%7D?%60%7B%7D"},
		{page, "https://user:pass[\x7f@foo/bar", "https://foo/bar"},
		{page, "http://é@example.com", "http://example.com/"},
		{page, "http://😀@host/", "http://host/"},
		{page, "http://a b@host/", "http://host/"},
		{page, "http://a@/x", ""},   // nothing after the '@'
		{page, "http://@:80/x", ""}, // nor before the port
	})
}

// Hosts that end in a number are IPv4 addresses in any of the spellings
// the WHATWG parser reads (decimal, octal, hexadecimal, one to four parts),
// written as dotted decimal, so they give one key and a fetchable URL; if
// they are no valid IPv4 address, the link is dropped as browsers drop it.
func TestResolveNumericHosts(t *testing.T) {
	checkResolveCases(t, NewLinkExtractor(allowAll{}), []resolveCase{
		{page, "http://192.168.257", "http://192.168.1.1/"},
		{page, "http://192.168.257.", "http://192.168.1.1/"},
		{page, "http://999999999", "http://59.154.201.255/"},
		{page, "http://999999999.", "http://59.154.201.255/"},
		{page, "http://256", "http://0.0.1.0/"},
		{page, "http://4294967295", "http://255.255.255.255/"},
		{page, "http://0xffffffff", "http://255.255.255.255/"},
		{page, "http://192.0x00A80001", "http://192.168.0.1/"},
		{page, "http://0x7f.1:8080/a", "http://127.0.0.1:8080/a"},
		{page, "http://0177.0.0.01", "http://127.0.0.1/"},
		{page, "https://0x.0x.0", "https://0.0.0.0/"},
		{page, "https://0x.0x.0x.0x", "https://0.0.0.0/"},
		{page, "https://00.00.00.00", "https://0.0.0.0/"},
		{page, "https://0000000000000000000000000000000000000000177.0.0.1", "https://127.0.0.1/"},
		{page, "http://%30%78%63%30%2e%30%32%35%30.01", "http://192.168.0.1/"},
		{page, "http://%30%78%63%30%2e%30%32%35%30.01%2e", "http://192.168.0.1/"},
		{page, "http://０Ｘｃ０．０２５０．０１", "http://192.168.0.1/"},
		{page, "//8.8.2056/x", "http://8.8.8.8/x"},
		// Not numbers: names.
		{page, "http://1.2.3.a/", "http://1.2.3.a/"},
		{page, "http://0x7f.example/", "http://0x7f.example/"},
		{page, "http://a.0xg/", "http://a.0xg/"},
		{page, "http://example.123abc/", "http://example.123abc/"},
		// Ends in a number, but no IPv4 address: dropped.
		{page, "http://256.256.256.256", ""},
		{page, "http://256.256.256.256.256", ""},
		{page, "http://192.168.0.257", ""},
		{page, "http://10000000000", ""},
		{page, "http://4294967296", ""},
		{page, "http://0xffffffff1", ""},
		{page, "http://18446744073709551616", ""},
		{page, "http://1.2.3.4.5", ""},
		{page, "http://1.2.3.4.5.", ""},
		{page, "http://foo.09", ""},
		{page, "http://foo.0x4", ""},
		{page, "http://foo.0x", ""},
		{page, "http://1.2.3.09", ""},
		{page, "http://1..2", ""},
	})
}

// The canonical form is what browsers send, in one spelling: the
// characters the WHATWG percent-encode sets encode are encoded (in the
// query too: ' in a special URL's query), a backslash in the path is a
// slash but in the query a character, and tabs and newlines are dropped.
func TestResolvePercentEncodeSets(t *testing.T) {
	checkResolveCases(t, NewLinkExtractor(allowAll{}), []resolveCase{
		{page, "http://host/?'", "http://host/?%27"},
		{page, "?q=it's", "http://example.org/foo/bar?q=it%27s"},
		{page, "a\\b?c\\d", "http://example.org/foo/a/b?c%5Cd"},
		{page, "?a\\b", "http://example.org/foo/bar?a%5Cb"},
		{page, "http://f:21/ b ? d # e ", "http://f:21/%20b%20?%20d%20"},
		{page, "https://www.example.com/path{\x7fpath.html?query'\x7f=query#fragment<\x7ffragment", "https://www.example.com/path%7B%7Fpath.html?query%27%7F=query"},
		{page, "a\tb\nc\rd", "http://example.org/foo/abcd"},
		{page, "ht\ttp://x.example/?q\n=1", "http://x.example/?q=1"},
		{page, "http://example\t.\norg", "http://example.org/"},
		{page, "http://f:\n/c", "http://f/c"},
	})
}

// htmlAttr escapes s for a double-quoted attribute.
func htmlAttr(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			out = append(out, "&quot;"...)
		case '&':
			out = append(out, "&amp;"...)
		default:
			out = append(out, s[i])
		}
	}
	return string(out)
}

// Numeric spellings of a private address are that address, so they are no
// way around the private-network check: such links are dropped by default,
// and where the address is allowed they are kept under the one dotted key.
func TestResolveNumericHostsStayPrivate(t *testing.T) {
	deny := NewLinkExtractor(privnet.New())
	allow := NewLinkExtractor(privnet.New(netip.MustParsePrefix("127.0.0.1/32")))
	for _, href := range []string{
		"http://0x7f.1/", "http://2130706433/", "http://0177.0.0.01/", "http://127.1/",
		"http://0x7F000001/", "http://017700000001/", "http://0x7f.0.0.1/", "http://127.0.0.1./",
		"http://%30x7f.1/", "http://０ｘ７ｆ．１/", "http://0x7f.1.", "http:2130706433",
	} {
		checkExtracted(t, deny, "https://example.com/", href, "")
		checkExtracted(t, allow, "https://example.com/", href, "http://127.0.0.1/")
	}
	for _, href := range []string{"http://0xa.1/", "http://167772161/", "http://0xa9.0xfe.0xa9.0xfe/", "http://0xc0a80001/"} {
		checkExtracted(t, allow, "https://example.com/", href, "")
	}
}

// Network-path and path references, dot segments, ports and hosts as the
// WHATWG parser reads them on an http(s) page (cases from the standard and
// the web-platform-tests URL data, in the crawler's canonical form).
func TestResolveRelativeForms(t *testing.T) {
	const withQuery = "http://example.org/foo/bar?q"
	checkResolveCases(t, NewLinkExtractor(allowAll{}), []resolveCase{
		{page, "//x.example/p?q#f", "http://x.example/p?q"},
		{page, "\\\\x.example\\p", "http://x.example/p"},
		{page, "/\\x.example/p", "http://x.example/p"},
		{page, "\\/x.example/p", "http://x.example/p"},
		{page, "/", "http://example.org/"},
		{page, "\\x", "http://example.org/x"},
		{page, "?", "http://example.org/foo/bar"},
		{page, "?x", "http://example.org/foo/bar?x"},
		{withQuery, "", ""}, // the page itself
		{withQuery, "#f", ""},
		{withQuery, "http:", ""},
		{withQuery, "HTTP:#f", ""},
		{withQuery, " \t#f", ""},
		{withQuery, "http:?", "http://example.org/foo/bar"},
		{withQuery, "http:x", "http://example.org/foo/x"},
		{withQuery, "x", "http://example.org/foo/x"},
		{withQuery, ".", "http://example.org/foo/"},
		{page, "..", "http://example.org/"},
		{page, "../../../x", "http://example.org/x"},
		{page, "%2e%2E/x", "http://example.org/x"},
		{page, ".%2e/x", "http://example.org/x"},
		{page, "a/%2e/b", "http://example.org/foo/a/b"},
		{page, "a//../b", "http://example.org/foo/a/b"},
		{page, "http:/x.example/y", "http://example.org/x.example/y"},
		{page, "https:/x.example/y", "https://x.example/y"},
		{page, "https:\\\\x.example", "https://x.example/"},
		{page, "http://x.example:80/", "http://x.example/"},
		{page, "https://x.example:443/", "https://x.example/"},
		{page, "http://x.example:00000000000000000080/", "http://x.example/"},
		{page, "http://x.example:/", "http://x.example/"},
		{page, "http://x.example:65536/", ""},
		{page, "http://x.example:8a/", ""},
		{page, "http://x.example: 80/", ""},
		{page, "http://[::1]:8080/", "http://[::1]:8080/"},
		{page, "http://[0:0::0:0:1]/", "http://[::1]/"},
		{page, "http://[::1", ""},
		{page, "http://[::1]x/", ""},
		{page, "http://[1:2:3:4:5:6:7:8:9]/", ""},
		{page, "http://[::1.2.3.4x]/", ""},
		{page, "http://[::127.0.0.0.1]/", ""},
		{page, "http://ex ample.org/", ""},
		{page, "http://ex%20ample.org/", ""},
		{page, "http://Example.ORG./P", "http://example.org/P"},
		{page, "http://Bücher.example/", "http://xn--bcher-kva.example/"},
		{page, "http://www.google.com/foo?bar=baz# »", "http://www.google.com/foo?bar=baz"},
		{page, "http://", ""},
		{page, "http:///", ""},
		{page, "http:///x.example/", "http://x.example/"},
		{page, "https://", ""},
		{page, "https:?x", ""},
	})
}

package crawler

import (
	"net/url"
	"slices"
	"testing"
	"time"
)

// Link resolution on http(s) pages follows the WHATWG URL standard, as
// browsers do, where it departs from RFC 3986. The cases are written from
// the standard's parsing rules and examples (special schemes, backslashes,
// extra slashes).
func TestResolveLikeBrowsers(t *testing.T) {
	for _, c := range []struct{ base, href, want string }{
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
		base, err := url.Parse(c.base)
		if err != nil {
			t.Fatal(err)
		}
		p := NewPayload([16]byte{1}, c.base, time.Time{})
		p.Body = []byte(`<a href="` + htmlAttr(c.href) + `">x</a>`)
		NewLinkExtractor(nil).extract(p, base)
		var want []string
		if c.want != "" {
			want = []string{c.want}
		}
		if got := slices.Concat(p.Links, p.NoFollowLinks); !slices.Equal(got, want) {
			t.Errorf("%q on %s: links %q, want %q", c.href, c.base, got, want)
		}
		p.MarkAsProcessed()
	}
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

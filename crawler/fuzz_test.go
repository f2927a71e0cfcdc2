package crawler

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/crawler/urlnorm"
)

// checkLink asserts what every extracted or resolved link must satisfy.
func checkLink(t *testing.T, link string) {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatalf("link %q does not parse: %v", link, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		t.Fatalf("link %q is not absolute http(s)", link)
	}
	if u.Fragment != "" || u.User != nil || strings.Contains(link, "#") {
		t.Fatalf("link %q keeps a fragment or user info", link)
	}
	if len(link) > MaxURLLength {
		t.Fatalf("link of %d bytes is longer than MaxURLLength", len(link))
	}
	if !utf8.ValidString(link) {
		t.Fatalf("link %q is not valid UTF-8", link)
	}
	// Resolving an absolute link again gives the same link.
	if again, _ := resolveLink(link, link, urlnorm.Options{}); again != link {
		t.Fatalf("resolving %q again gives %q", link, again)
	}
}

func FuzzResolveURL(f *testing.F) {
	for _, s := range [][2]string{
		{"http://example.com/a/b", "c"},
		{"https://example.com/", "//other.org/x#y"},
		{"http://example.com/", "../../x?y#z"},
		{"http://example.com/", "javascript:alert(1)"},
		{"http://example.com/", "http://u:p@h/"},
		{"http://example.com/", "\\\\evil\\x"},
		{"http://example.com/", " \t\nhttp://h/%zz"},
		{"http://[::1]:80/", "http://[fe80::1%25eth0]/"},
		{"http://example.com/", "http://0x7f.1/"},
		{"http://example.com/", "HTTP://EXAMPLE.COM:/"},
		{"http://example.com/a/b", "12:30-meeting.html"},
		{"http://example.com/a/b", "/sale-50%-off.html#50%"},
		{"http://example.com/a/b?q", "http:?x#y"},
		{"https://example.com/", "http:\\\\&a:foo(b]c@192.168.257:080\\x?y\\z"},
		{"http://example.com/", "http://256.256.256.256/"},
		{"http://0x7f.1/a/", "[61:24:74]:98"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, base, href string) {
		b, err := url.Parse(base)
		if err != nil || b.Scheme != "http" && b.Scheme != "https" || b.Host == "" {
			return
		}
		if link, _ := resolveLink(b.String(), href, urlnorm.Options{}); link != "" {
			checkLink(t, link)
		}
	})
}

func FuzzExtractLinks(f *testing.F) {
	for _, s := range []string{
		`<a href="/a">a</a><a href='b' rel="nofollow">b</a>`,
		`<base href="//cdn.example.net/x/"><a href=y>y</a><area href="/z">`,
		`<meta name=robots content="noindex,nofollow"><a href="/a#f">`,
		`<a href="http://127.0.0.1/">x</a><a href="http://localhost/">`,
		`<script><a href="/no"></script><a href="/a" href="/b">`,
		"<a href=\"\x00\xff/\">",
		`<a href="/x" rel=nofollow><a href="/x">`,
	} {
		f.Add([]byte(s))
	}
	e := NewLinkExtractor(privnet.New())
	f.Fuzz(func(t *testing.T, body []byte) {
		p := NewPayload([16]byte{1}, "https://example.com/dir/page", time.Time{})
		defer p.MarkAsProcessed()
		p.Body = append(p.Body, body...)
		if _, err := e.Process(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, l := range append(append([]string(nil), p.Links...), p.NoFollowLinks...) {
			if seen[l] {
				t.Fatalf("link %q appears twice", l)
			}
			seen[l] = true
			checkLink(t, l)
			u, _ := url.Parse(l)
			if private, err := privnet.New().IsPrivate(u.Hostname()); private || err != nil {
				t.Fatalf("private or invalid host kept: %q", l)
			}
			if hasNonHTMLExtension(u.Path) {
				t.Fatalf("non-HTML link kept: %q", l)
			}
		}
	})
}

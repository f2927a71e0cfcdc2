package crawler

import (
	"net/url"
	"strings"
	"testing"

	"github.com/linksrus/linksrus/crawler/urlnorm"
)

// generalLink is what the general path (resolveLink with zero Options)
// makes of href: the link and its decoded path, or ok false when it drops
// it.
func generalLink(base *url.URL, href string) (link, path string, ok bool) {
	link, u := resolveLink(base.String(), href, urlnorm.Options{})
	if u == nil {
		return "", "", false
	}
	return link, u.Path, true
}

// checkFastMatchesGeneral fails when resolveFast, on a link it claims,
// disagrees with the general path.
func checkFastMatchesGeneral(t *testing.T, base *url.URL, href string) {
	t.Helper()
	pb := newPageBase(base)
	got, pathEnd, res := pb.resolveFast(nil, []byte(href))
	if res == fastUnsupported {
		return
	}
	want, wantPath, ok := generalLink(base, href)
	switch {
	case res == fastDropped && ok:
		t.Fatalf("base %q, href %q: fast path drops it, general path gives %q", base, href, want)
	case res == fastResolved && !ok:
		t.Fatalf("base %q, href %q: fast path gives %q, general path drops it", base, href, got)
	case res == fastResolved && string(got) != want:
		t.Fatalf("base %q, href %q: fast path gives %q, general path %q", base, href, got, want)
	case res == fastResolved && string(got[len(pb.origin):pathEnd]) != wantPath:
		t.Fatalf("base %q, href %q: fast path's path %q, general path's %q", base, href, got[len(pb.origin):pathEnd], wantPath)
	}
}

var fastBases = []string{
	"https://example.com/dir/page.html",
	"http://example.com/",
	"http://127.0.0.1:8080/pg/sql-select.html",
	"https://www.example.org/a/b/c/",
	"http://[2001:db8::1]:81/x/y",
}

var fastHrefs = []string{
	"sib", "sib.html#frag", "../up", "../../../../x", "./a/./b/../c", ".", "..", "./", "../",
	"/abs", "/a/b/..", "/..", "a/.", "a/..", ".a/..b/...", "x?", "x?#f", "x?q=1&r=2", "x?q=a/b?c:d@e!$&'()*+,;=",
	"x?q=%41", "x?q=a b", "x#%zz", "x#a b", "x#\x01", "x#ok/\\", "  /trim  ", "a//b", "//h.org/x", "/a//b",
	"?q", "#top", "", " ", "a:b", "a%7Eb", "a\\b", "a\tb", "ü", "x?ü", "x#ü",
	"12:30.html", ":x", "x?q='", "a'b", "x?a\\b", "x#50%", "x#\t", "sale-50%-off", "http:x", "[x]",
}

func TestResolveFastMatchesGeneral(t *testing.T) {
	claimed := 0
	for _, b := range fastBases {
		base, err := url.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		if newPageBase(base).origin == "" {
			t.Fatalf("fast path off for canonical base %q", b)
		}
		for _, href := range fastHrefs {
			checkFastMatchesGeneral(t, base, href)
			if _, _, res := newPageBase(base).resolveFast(nil, []byte(href)); res == fastResolved {
				claimed++
			}
		}
	}
	// The fast path is only worth having if it takes the common links.
	if want := 20 * len(fastBases); claimed < want {
		t.Fatalf("fast path resolved %d links, want at least %d", claimed, want)
	}
}

// Bases that are not canonical turn the fast path off rather than produce
// links in a form the general path would not.
func TestResolveFastOffForNonCanonicalBase(t *testing.T) {
	for _, b := range []string{
		"HTTP://Example.com/a", "http://example.com:80/a", "http://example.com", "http://u@example.com/",
		"http://example.com/a%20b", "http://example.com/a//b", "http://example.com/a/../b", "ftp://example.com/",
		"http://EXAMPLE.com/", "http://bücher.example/",
	} {
		base, err := url.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		if pb := newPageBase(base); pb.origin != "" {
			t.Errorf("fast path on for non-canonical base %q", b)
		}
	}
}

func TestResolveFastDropsOverlong(t *testing.T) {
	base, _ := url.Parse("http://example.com/dir/")
	long := []byte(strings.Repeat("x", MaxURLLength-len("http://example.com/dir/")+1))
	if _, _, res := newPageBase(base).resolveFast(nil, long); res != fastDropped {
		t.Fatalf("overlong link: result %v, want fastDropped", res)
	}
	checkFastMatchesGeneral(t, base, string(long))
	checkFastMatchesGeneral(t, base, string(long[:len(long)-1]))
}

func FuzzResolveFast(f *testing.F) {
	for _, b := range fastBases {
		for _, h := range fastHrefs {
			f.Add(b, h)
		}
	}
	canonical := make([]*url.URL, len(fastBases))
	for i, b := range fastBases {
		canonical[i], _ = url.Parse(b)
	}
	f.Fuzz(func(t *testing.T, base, href string) {
		// Random bases mostly turn the fast path off, so every href is
		// also tried against canonical ones.
		for _, b := range canonical {
			checkFastMatchesGeneral(t, b, href)
		}
		b, err := url.Parse(base)
		if err != nil {
			return
		}
		checkFastMatchesGeneral(t, b, href)
		// Whatever the fast path yields is canonical.
		if got, _, res := newPageBase(b).resolveFast(nil, []byte(href)); res == fastResolved {
			if n, err := urlnorm.Normalize(string(got), urlnorm.Options{}); err != nil || n != string(got) {
				t.Fatalf("fast link %q is not canonical: %q, %v", got, n, err)
			}
		}
	})
}

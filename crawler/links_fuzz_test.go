package crawler

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/crawler/urlnorm"
)

// Whatever the page, every stored link is in canonical form for the
// extractor's options (so de-duplication by string is de-duplication by
// URL), and appears once across Links and NoFollowLinks.
func FuzzExtractNormalizedLinks(f *testing.F) {
	f.Add("http://example.com/", `<a href="HTTP://EXAMPLE.com:80/a/./b/../%7e?utm_source=x&b=1&a=2#f">x</a><a href=/~?a=2&b=1 rel=nofollow>`, uint8(3))
	f.Add("https://bücher.example/dir/", `<base href="//xn--bcher-kva.example./"><a href="%e2%82%ac?&&">e</a>`, uint8(1))
	f.Add("http://[::FFFF:1.2.3.4]:8080/", `<a href="..%2f..%2F/x?q=%zz">`, uint8(2))
	f.Fuzz(func(t *testing.T, page, body string, flags uint8) {
		opts := urlnorm.Options{SortQuery: flags&1 != 0, StripTracking: flags&2 != 0}
		e := NewLinkExtractorWithOptions(privnet.New(), LinkOptions{Normalization: opts})
		p := NewPayload([16]byte{1}, page, time.Time{})
		defer p.MarkAsProcessed()
		p.Body = append(p.Body, body...)
		if _, err := e.Process(context.Background(), p); err != nil {
			return // an unparsable page URL is refused, not a panic
		}
		seen := map[string]bool{}
		for _, l := range append(append([]string(nil), p.Links...), p.NoFollowLinks...) {
			n, err := urlnorm.Normalize(l, opts)
			if err != nil || n != l {
				t.Fatalf("stored link %q is not canonical: %q, %v", l, n, err)
			}
			if seen[l] {
				t.Fatalf("link %q stored twice", l)
			}
			seen[l] = true
		}
	})
}

// The shortcuts (resolveFast, rawLinkAttrs, the per-page host verdict)
// change nothing: a page gives the same links, in the same lists and order,
// with them as without them.
func FuzzExtractShortcutsMatchGeneral(f *testing.F) {
	f.Add("http://example.com/", `<a href="HTTP://EXAMPLE.com:80/a/./b/../%7e?utm_source=x&b=1&a=2#f">x</a><a href=/~?a=2&b=1 rel=nofollow>`, uint8(3))
	f.Add("https://example.com/dir/page.html", `<a href=sib><a href="../up?q=1&amp;r=2#x" rel="nofollow"><a href=sib rel=NOFOLLOW><a href="/i.png"><base href="/other/"><a href=p>`, uint8(0))
	f.Add("http://127.0.0.1:8080/docs/", `<meta name=robots content=nofollow><a href="a.html#s" rel=nofollow><a href='a.html'><area href=b.html/>`, uint8(1))
	f.Add("https://example.com/a/b/", "<a href=\"./x/../y\"><a\thref=z rel='x nofollow'><a href=\"q\x00\"><a href=\"r\rs\">", uint8(2))
	f.Fuzz(func(t *testing.T, page, body string, flags uint8) {
		opts := LinkOptions{Normalization: urlnorm.Options{SortQuery: flags&1 != 0, StripTracking: flags&2 != 0}}
		fast := NewLinkExtractorWithOptions(privnet.New(), opts)
		general := NewLinkExtractorWithOptions(privnet.New(), opts)
		general.general = true
		var got, want *Payload
		for _, run := range []struct {
			e   *LinkExtractor
			out **Payload
		}{{fast, &got}, {general, &want}} {
			p := NewPayload([16]byte{1}, page, time.Time{})
			defer p.MarkAsProcessed()
			p.Body = append(p.Body, body...)
			if _, err := run.e.Process(context.Background(), p); err != nil {
				return
			}
			*run.out = p
		}
		if !slices.Equal(got.Links, want.Links) || !slices.Equal(got.NoFollowLinks, want.NoFollowLinks) || got.NoIndex != want.NoIndex {
			t.Fatalf("page %q: with shortcuts %q, %q, %v; without %q, %q, %v",
				page, got.Links, got.NoFollowLinks, got.NoIndex, want.Links, want.NoFollowLinks, want.NoIndex)
		}
	})
}

// The same on real pages: the PostgreSQL documentation, when installed.
func TestExtractShortcutsMatchGeneralOnPGDocs(t *testing.T) {
	paths, err := filepath.Glob("/usr/share/doc/postgresql-doc-15/html/*.html")
	if err != nil || len(paths) == 0 {
		t.Skip("PostgreSQL documentation not installed")
	}
	allow := privnet.New(netip.MustParsePrefix("127.0.0.0/8"))
	fast := NewLinkExtractor(allow)
	general := NewLinkExtractor(allow)
	general.general = true
	links := 0
	for _, path := range paths {
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		page := "http://127.0.0.1:8081/" + filepath.Base(path)
		got := extractFrom(t, fast, page, string(body))
		want := extractFrom(t, general, page, string(body))
		if !slices.Equal(got.Links, want.Links) || !slices.Equal(got.NoFollowLinks, want.NoFollowLinks) || got.NoIndex != want.NoIndex {
			t.Fatalf("%s: with shortcuts %q, %q; without %q, %q", path, got.Links, got.NoFollowLinks, want.Links, want.NoFollowLinks)
		}
		links += len(got.Links)
		got.MarkAsProcessed()
		want.MarkAsProcessed()
	}
	if links < 10*len(paths) {
		t.Fatalf("%d links on %d pages: too few to have compared anything", links, len(paths))
	}
}

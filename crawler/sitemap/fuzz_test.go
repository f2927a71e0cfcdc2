package sitemap

import (
	"bytes"
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"
)

// FuzzParse feeds random bytes to Parse, plain and gzipped: it must never
// panic, every entry it hands out must be valid and within the location,
// and it must stay within its limits. The seeds are the cases of the
// tests; inputs the fuzzer found interesting are kept in
// testdata/fuzz/FuzzParse and run as regression tests by go test.
func FuzzParse(f *testing.F) {
	f.Add([]byte(urlset), false)
	f.Add([]byte(urlset), true)
	f.Add([]byte(`<sitemapindex><sitemap><loc>http://h/s.xml</loc><lastmod>2020</lastmod></sitemap></sitemapindex>`), false)
	f.Add([]byte("<urlset><url><loc>http://h/a"), false)
	f.Add([]byte("<html><body></body></html>"), false)
	f.Add([]byte("\x1f\x8b\x08\x00"), false)
	if b, err := os.ReadFile("testdata/nested.xml"); err == nil {
		f.Add(b, false)
	}
	loc, _ := url.Parse("http://h/dir/sitemap.xml")
	f.Fuzz(func(t *testing.T, data []byte, compress bool) {
		if compress {
			data = gz(t, data)
		}
		const maxURLs = 100
		n := 0
		res, err := Parse(bytes.NewReader(data), Options{Location: loc, MaxURLs: maxURLs, MaxBytes: 1 << 16}, func(k Kind, e Entry) error {
			n++
			if k != URLSet && k != Index {
				t.Fatalf("entry of kind %v", k)
			}
			u, err := url.Parse(e.Loc)
			if err == nil {
				u = u.ResolveReference(&url.URL{}) // dot segments
			}
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !strings.EqualFold(u.Host, "h") ||
				!strings.HasPrefix(u.EscapedPath(), "/dir/") || len(e.Loc) > MaxLocLength {
				t.Fatalf("entry %q outside %s", e.Loc, loc)
			}
			return nil
		})
		if n != res.URLs || res.URLs+res.Skipped > maxURLs {
			t.Fatalf("%d entries handed out, result %+v", n, res)
		}
		if err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNotSitemap) && !errors.Is(err, ErrTooLarge) &&
			!strings.HasPrefix(err.Error(), "sitemap: read: ") {
			t.Fatalf("unclassified error %v", err)
		}
	})
}

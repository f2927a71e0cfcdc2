package crawler

import (
	"net/url"
	"testing"
)

// BenchmarkResolveGeneral measures the general path, which takes the links
// resolveFast leaves to it: absolute and network-path references, escapes,
// spaces, non-canonical spellings.
func BenchmarkResolveGeneral(b *testing.B) {
	base, err := url.Parse("https://www.example.com/docs/15/textsearch.html")
	if err != nil {
		b.Fatal(err)
	}
	hrefs := []string{
		"https://other.example.org/x/y-12",
		"//cdn.example.net/lib/page.html",
		"page%20two.html",
		"/wiki/Caf%C3%A9",
		"search?q=a b&lang=en",
		"HTTP://Example.COM:80/a/./b/../c",
		"../up/item.html?x=%7e#top",
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, _, ok := generalLink(base, hrefs[i%len(hrefs)]); !ok {
			b.Fatalf("%q dropped", hrefs[i%len(hrefs)])
		}
	}
}

package urlnorm

import (
	"net/url"
	"testing"
)

var benchURLs = []string{
	"https://example.com/articles/2024/some-long-article-title?page=2",
	"HTTP://WWW.Example.COM:80/a/./b/../c/%7euser/index.html?b=2&a=1#section",
	"https://news.example.org/path/to/page?utm_source=feed&utm_medium=rss&id=42",
	"http://bücher.example/straße?q=%e2%82%ac",
}

// BenchmarkNormalize measures Normalize; BenchmarkBaselineURLParse measures
// plain url.Parse + String on the same inputs as the yardstick, since a
// crawler that did no normalisation would still parse every link.
func BenchmarkNormalize(b *testing.B) {
	b.ReportAllocs()
	opts := Options{SortQuery: true, StripTracking: true}
	for i := 0; b.Loop(); i++ {
		if _, err := Normalize(benchURLs[i%len(benchURLs)], opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNormalizeASCII(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Normalize(benchURLs[i%3], Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolve measures Resolve on links that need more than the
// crawler's fast path: absolute, network-path, escapes, odd spellings.
func BenchmarkResolve(b *testing.B) {
	const base = "https://www.example.com/docs/15/textsearch.html"
	refs := []string{
		"https://other.example.org/x/y-12",
		"//cdn.example.net/lib/page.html",
		"page%20two.html",
		"../up/item.html?x=%7e#top",
		"12:30-meeting.html",
		"HTTP://Example.COM:80/a/./b/../c",
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Resolve(base, refs[i%len(refs)], Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBaselineURLParse(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		u, err := url.Parse(benchURLs[i%3])
		if err != nil {
			b.Fatal(err)
		}
		_ = u.String()
	}
}

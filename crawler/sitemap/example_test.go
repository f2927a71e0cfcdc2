package sitemap_test

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/linksrus/linksrus/crawler/sitemap"
)

func ExampleParse() {
	const file = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/blog/first</loc><lastmod>2024-05-06</lastmod></url>
  <url><loc>https://example.com/blog/second</loc></url>
  <url><loc>https://example.com/shop/</loc></url>
</urlset>`
	// Fetched from /blog/: only URLs under /blog/ count.
	loc, _ := url.Parse("https://example.com/blog/sitemap.xml")
	res, err := sitemap.Parse(strings.NewReader(file), sitemap.Options{Location: loc}, func(k sitemap.Kind, e sitemap.Entry) error {
		fmt.Println(k, e.Loc, e.LastMod.Format("2006-01-02"))
		return nil
	})
	fmt.Println(res.URLs, "listed,", res.Skipped, "skipped, error:", err)
	// Output:
	// urlset https://example.com/blog/first 2024-05-06
	// urlset https://example.com/blog/second 0001-01-01
	// 2 listed, 1 skipped, error: <nil>
}

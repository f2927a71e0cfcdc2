package crawler

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/linksrus/linksrus/crawler/privnet"
)

// linkBenchPage builds a realistic page of about 30 KB with n links in the
// shapes real sites use: relative, root-relative, with fragments, with
// queries, to other hosts, nofollow, and duplicates.
func linkBenchPage(n int) []byte {
	rng := rand.New(rand.NewPCG(7, 8))
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Chapter 12. Full Text Search</title>` +
		`<link rel="stylesheet" type="text/css" href="stylesheet.css"><meta name="viewport" content="width=device-width">` +
		`<script>var x = "<a href='/nope'>";</script></head><body id="docContent" class="container-fluid col-10">`)
	for i := range n {
		switch i % 6 {
		case 0:
			fmt.Fprintf(&sb, `<a href="page-%d.html" title="Section %d">%d. Section</a> `, rng.IntN(500), i, i)
		case 1:
			fmt.Fprintf(&sb, `<a class="xref" href="page-%d.html#ID-%d">see here</a> `, rng.IntN(500), i)
		case 2:
			fmt.Fprintf(&sb, `<a href="/docs/15/sub/page-%d.html">abs</a> `, rng.IntN(500))
		case 3:
			fmt.Fprintf(&sb, `<a href="../up/item-%d.html?lang=en&amp;v=%d" rel="nofollow">up</a> `, rng.IntN(200), i%3)
		case 4:
			fmt.Fprintf(&sb, `<a href="https://other%d.example.org/x/y-%d">ext</a> `, i%5, rng.IntN(100))
		case 5:
			fmt.Fprintf(&sb, `<a href="#sect-%d">local</a> `, i)
		}
		if i%4 == 0 {
			sb.WriteString(`<p>Full text searching provides the capability to identify natural-language documents that satisfy a query, ` +
				`and optionally to sort them by relevance to the query. <code class="literal">tsvector</code> &amp; more.</p>`)
		}
	}
	for sb.Len() < 30<<10 {
		sb.WriteString(`<div class="sect2"><p>The most common type of search is to find all documents containing given query terms ` +
			`and return them in order of their <span class="emphasis"><em>similarity</em></span> to the query.</p></div>`)
	}
	sb.WriteString(`</body></html>`)
	return []byte(sb.String())
}

// benchExtract measures Process on body as the page at pageURL, with
// loopback allowed as `linksrus crawl --allow-net 127.0.0.0/8` does.
func benchExtract(b *testing.B, pageURL string, body []byte) {
	e := NewLinkExtractor(privnet.New(netip.MustParsePrefix("127.0.0.0/8")))
	ctx := context.Background()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	links := 0
	for b.Loop() {
		p := NewPayload([16]byte{1}, pageURL, time.Time{})
		p.Body = append(p.Body, body...)
		if _, err := e.Process(ctx, p); err != nil {
			b.Fatal(err)
		}
		links = len(p.Links) + len(p.NoFollowLinks)
		p.MarkAsProcessed()
	}
	b.ReportMetric(float64(links), "links/page")
}

// BenchmarkExtractLinks measures link extraction per page on generated
// 30 KB pages with 60 and 300 links.
func BenchmarkExtractLinks(b *testing.B) {
	for _, n := range []int{60, 300} {
		b.Run(fmt.Sprintf("links=%d", n), func(b *testing.B) {
			benchExtract(b, "https://www.example.com/docs/15/textsearch.html", linkBenchPage(n))
		})
	}
}

const pgDocsDir = "/usr/share/doc/postgresql-doc-15/html"

// pgDocsPages reads the PostgreSQL documentation, or skips b when the
// distribution's copy is not installed.
func pgDocsPages(b *testing.B) (names []string, bodies [][]byte) {
	paths, err := filepath.Glob(filepath.Join(pgDocsDir, "*.html"))
	if err != nil || len(paths) == 0 {
		b.Skipf("PostgreSQL documentation not installed in %s", pgDocsDir)
	}
	for _, path := range paths {
		body, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		names = append(names, filepath.Base(path))
		bodies = append(bodies, body)
	}
	return names, bodies
}

// BenchmarkExtractLinksPGDocs measures link extraction on real pages of
// the PostgreSQL documentation: three typical ones, then the whole corpus
// (ns/op is per corpus pass; ns/page is reported). BenchmarkTokenizeOnly
// is the yardstick: what any Go crawler on x/net/html pays.
func BenchmarkExtractLinksPGDocs(b *testing.B) {
	names, bodies := pgDocsPages(b)
	for i, name := range names {
		if name == "sql-select.html" || name == "textsearch-controls.html" || name == "bookindex.html" {
			b.Run(name, func(b *testing.B) {
				benchExtract(b, "http://127.0.0.1:8081/"+name, bodies[i])
			})
		}
	}
	b.Run("corpus", func(b *testing.B) {
		e := NewLinkExtractor(privnet.New(netip.MustParsePrefix("127.0.0.0/8")))
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			for i, body := range bodies {
				p := NewPayload([16]byte{1}, "http://127.0.0.1:8081/"+names[i], time.Time{})
				p.Body = append(p.Body, body...)
				if _, err := e.Process(ctx, p); err != nil {
					b.Fatal(err)
				}
				p.MarkAsProcessed()
			}
		}
		reportPerPage(b, len(bodies))
	})
}

// BenchmarkTokenizeOnly is the floor under BenchmarkExtractLinksPGDocs/corpus:
// the loop of the bench harness's minimal crawler (gobase), which tokenizes
// each page and reads the href of every <a>, resolving nothing.
func BenchmarkTokenizeOnly(b *testing.B) {
	_, bodies := pgDocsPages(b)
	b.ReportAllocs()
	hrefs := 0
	for b.Loop() {
		for _, body := range bodies {
			z := html.NewTokenizer(bytes.NewReader(body))
			for {
				tt := z.Next()
				if tt == html.ErrorToken {
					break
				}
				if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
					continue
				}
				if name, hasAttr := z.TagName(); !hasAttr || string(name) != "a" {
					continue
				}
				for {
					k, _, more := z.TagAttr()
					if string(k) == "href" {
						hrefs++
					}
					if !more {
						break
					}
				}
			}
		}
	}
	reportPerPage(b, len(bodies))
}

// reportPerPage adds ns/page to a benchmark whose op is a pass over pages
// pages (divide allocs/op by the page count for allocs/page).
func reportPerPage(b *testing.B, pages int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(pages), "ns/page")
}

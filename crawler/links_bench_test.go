package crawler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// BenchmarkExtractLinksPGDocs measures link extraction on real pages of
// the PostgreSQL documentation, when the distribution's copy is installed.
func BenchmarkExtractLinksPGDocs(b *testing.B) {
	const dir = "/usr/share/doc/postgresql-doc-15/html"
	for _, name := range []string{"sql-select.html", "textsearch-controls.html", "bookindex.html"} {
		body, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Skipf("PostgreSQL documentation not installed: %v", err)
		}
		b.Run(name, func(b *testing.B) {
			benchExtract(b, "http://127.0.0.1:8080/pg/"+name, body)
		})
	}
}

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
)

// separately runs the LinkExtractor and then the TextExtractor on body, as
// a crawl without PageExtractor did.
func separately(t testing.TB, page string, body []byte) *Payload {
	t.Helper()
	p := NewPayload([16]byte{1}, page, time.Time{})
	p.Body = append(p.Body, body...)
	ctx := context.Background()
	if _, err := NewLinkExtractor(privnet.New(netip.MustParsePrefix("127.0.0.0/8"))).Process(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := NewTextExtractor().Process(ctx, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// together runs the PageExtractor on body.
func together(t testing.TB, page string, body []byte) *Payload {
	t.Helper()
	p := NewPayload([16]byte{1}, page, time.Time{})
	p.Body = append(p.Body, body...)
	x := NewPageExtractor(privnet.New(netip.MustParsePrefix("127.0.0.0/8")), LinkOptions{})
	if _, err := x.Process(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// sameExtraction reports how the two payloads' extraction results differ,
// or "".
func sameExtraction(a, b *Payload) string {
	switch {
	case !slices.Equal(a.Links, b.Links):
		return "links"
	case !slices.Equal(a.LinkTexts, b.LinkTexts):
		return "link texts"
	case !slices.Equal(a.NoFollowLinks, b.NoFollowLinks):
		return "nofollow links"
	case a.NoIndex != b.NoIndex:
		return "noindex"
	case a.Title != b.Title:
		return "title"
	case a.TextContent != b.TextContent:
		return "text"
	case a.Headings != b.Headings:
		return "headings"
	}
	return ""
}

// extractionCases are pages that exercise both extractors' corners.
var extractionCases = []string{
	`<nav><h2>Menu</h2></nav><h1>One <em>two</em></h1><p>x<h2>Open<h3>Next</h3><script><h4>no</h4></script>`,
	`<html><head><title>T &amp; t</title><base href="/sub/"><meta name="robots" content="noindex"></head>
	 <body><p>One <b>two</b></p><a href="a.html">a</a><a rel="nofollow" href="/n">n</a>
	 <script>var x = "<a href='/s'>";</script><style>a{}</style><svg><title>no</title></svg>
	 <template><a href="/t">t</a></template><noscript><a href="/ns">ns</a></noscript></body></html>`,
	`<meta name="robots" content="nofollow"><a href="/x">x</a><a href="http://10.0.0.1/">private</a>`,
	`<title/><script/><a href="/after-self-closed-script">after</a><style/>text`,
	`<A HREF="/UPPER">Upper</A><BASE HREF="http://other.example/"><a href=rel>r</a>`,
	`<html><body>no links, only <i>text</i> &nbsp; &#x41; &bogus;</body></html>`,
	`<a href="` + "\t/tab\n" + `">tab</a><a href="javascript:alert(1)">js</a><a href="#frag">f</a>`,
	"",
	`<title>unclosed`,
	`<a href="/a"><a href="/a">dup</a>`,
	`<a href="/w">two <b>words</b><div>block</div><img alt="pic"></a><area href="/m" alt="map"><a href="/w">two words</a><a href="/w">other</a>`,
}

// TestPageExtractorMatchesSeparateExtractors: the one-pass stage gives the
// two stages' results, field for field, on tricky pages and, where it is
// installed, on every page of the PostgreSQL documentation.
func TestPageExtractorMatchesSeparateExtractors(t *testing.T) {
	const page = "http://127.0.0.1:8081/dir/page.html"
	for i, body := range extractionCases {
		if d := sameExtraction(separately(t, page, []byte(body)), together(t, page, []byte(body))); d != "" {
			t.Errorf("case %d: %s differ", i, d)
		}
	}
	paths, _ := filepath.Glob(filepath.Join(pgDocsDir, "*.html"))
	if len(paths) > 300 && testing.Short() {
		paths = paths[:300]
	}
	for _, path := range paths {
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		page := "http://127.0.0.1:8081/" + filepath.Base(path)
		if d := sameExtraction(separately(t, page, body), together(t, page, body)); d != "" {
			t.Errorf("%s: %s differ", filepath.Base(path), d)
		}
	}
	t.Logf("%d documentation pages compared", len(paths))
}

// FuzzPageExtractorMatchesSeparateExtractors holds the one-pass stage to the
// two stages on any input.
func FuzzPageExtractorMatchesSeparateExtractors(f *testing.F) {
	for _, c := range extractionCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, body string) {
		const page = "http://127.0.0.1:8081/dir/page.html"
		a, b := separately(t, page, []byte(body)), together(t, page, []byte(body))
		if d := sameExtraction(a, b); d != "" {
			t.Fatalf("%s differ: separate %q %q, together %q %q", d, a.Links, a.TextContent, b.Links, b.TextContent)
		}
	})
}

// BenchmarkPageExtraction compares the one-pass stage with the two stages
// it replaces, on the PostgreSQL documentation (per corpus pass; ns/page
// reported).
func BenchmarkPageExtraction(b *testing.B) {
	names, bodies := pgDocsPages(b)
	ctx := context.Background()
	det := privnet.New(netip.MustParsePrefix("127.0.0.0/8"))
	links, text := NewLinkExtractor(det), NewTextExtractor()
	both := NewPageExtractor(det, LinkOptions{})
	b.Run("separate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i, body := range bodies {
				p := NewPayload([16]byte{1}, "http://127.0.0.1:8081/"+names[i], time.Time{})
				p.Body = append(p.Body, body...)
				if _, err := links.Process(ctx, p); err != nil {
					b.Fatal(err)
				}
				if _, err := text.Process(ctx, p); err != nil {
					b.Fatal(err)
				}
				p.MarkAsProcessed()
			}
		}
		reportPerPage(b, len(bodies))
	})
	b.Run("one-pass", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i, body := range bodies {
				p := NewPayload([16]byte{1}, "http://127.0.0.1:8081/"+names[i], time.Time{})
				p.Body = append(p.Body, body...)
				if _, err := both.Process(ctx, p); err != nil {
					b.Fatal(err)
				}
				p.MarkAsProcessed()
			}
		}
		reportPerPage(b, len(bodies))
	})
}

package crawler

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/linksrus/linksrus/pipeline"
)

// templatePage is a page of a site whose template nothing marks as
// navigation: a table of links and a footer in a plain <div>, around
// content of its own and short headings and cells its pages share.
func templatePage(host string, n int) *Payload {
	body := fmt.Sprintf(`<html><head><title>Page %[1]d</title></head><body>
<table><tr><td><a href="/">Home</a></td><td><a href="/p%[2]d">Previous page</a></td><td><a href="/about">About us</a></td></tr></table>
<h2>Synopsis</h2>
<p>Unique content number %[1]d, about subject%[1]d <a href="/x">with a link</a> inside.</p>
<table><tr><td>integer</td><td>value%[1]d</td></tr></table>
<div>Copyright 2026 Acme Widgets Incorporated, all rights reserved.</div>
</body></html>`, n, n-1)
	return &Payload{URL: fmt.Sprintf("http://%s/p%d", host, n), Body: []byte(body)}
}

func TestRepeatedTextLeftOut(t *testing.T) {
	for name, stage := range map[string]pipeline.Processor{
		"TextExtractor": NewTextExtractor(),
		"PageExtractor": NewPageExtractor(nil, LinkOptions{}),
	} {
		t.Run(name, func(t *testing.T) {
			text := func(p *Payload) string {
				t.Helper()
				if _, err := stage.Process(t.Context(), p); err != nil {
					t.Fatal(err)
				}
				return p.TextContent
			}
			for n := range 6 {
				got := text(templatePage("a.example", n))
				for _, kept := range []string{fmt.Sprintf("Unique content number %d, about subject%d with a link inside.", n, n), "Synopsis", "integer value"} {
					if !strings.Contains(got, kept) {
						t.Errorf("page %d: text %q lost %q", n, got, kept)
					}
				}
				template := []string{"Home", "Previous page", "About us", "Copyright 2026"}
				for _, w := range template {
					if n < repeatPages-1 && !strings.Contains(got, w) {
						t.Errorf("page %d: text %q lost %q before it was seen repeated", n, got, w)
					}
					if n >= repeatPages-1 && strings.Contains(got, w) {
						t.Errorf("page %d: text %q keeps %q, repeated on every page", n, got, w)
					}
				}
			}
			// Another host's pages are counted apart.
			if got := text(templatePage("b.example", 0)); !strings.Contains(got, "Copyright") || !strings.Contains(got, "Home") {
				t.Errorf("first page of another host: text %q lost its template", got)
			}
			// A page that is all template keeps it.
			p := &Payload{URL: "http://a.example/empty", Body: []byte(`<table><tr><td><a href="/">Home</a></td><td><a href="/about">About us</a></td></tr></table>` +
				`<div>Copyright 2026 Acme Widgets Incorporated, all rights reserved.</div>`)}
			if got := text(p); got != "Home About us Copyright 2026 Acme Widgets Incorporated, all rights reserved." {
				t.Errorf("a page of the template only: text %q, want it all", got)
			}
		})
	}
}

func TestRepeatedTextCountsPages(t *testing.T) {
	x := NewTextExtractor()
	footer := `<div>Printed from the archive of the society, volume two.</div>`
	text := func(body string) string {
		t.Helper()
		p := &Payload{URL: "http://c.example/", Body: []byte(body)}
		if _, err := x.Process(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		return p.TextContent
	}
	// A block twice on a page counts once: on the second page it has
	// been on two pages, not four.
	for n := range repeatPages - 1 {
		if got := text(footer + fmt.Sprintf("<p>page %d</p>", n) + footer); strings.Count(got, "Printed") != 2 {
			t.Errorf("page %d: text %q, want the footer kept twice", n, got)
		}
	}
	if got := text(footer + "<p>one more</p>" + footer); got != "one more" {
		t.Errorf("page %d: text %q, want both copies of the footer left out", repeatPages, got)
	}
	// White space around it does not make a block another.
	if got := text("<p>last</p><div>\n\t Printed from the archive of the society, volume two.\n</div>"); got != "last" {
		t.Errorf("text %q, want the footer left out whatever white space is around it", got)
	}
}

func TestRepeatedTextBounded(t *testing.T) {
	var r repeatedText
	var dst bytes.Buffer
	page := func(host string, blocks ...string) {
		var text []byte
		var bs []textBlock
		for _, b := range blocks {
			bs = append(bs, textBlock{start: len(text), end: len(text) + len(b), text: true})
			text = append(append(text, b...), ' ')
		}
		r.leaveOut(host, text, bs, nil, &dst)
	}
	// Pages of unique blocks: the host keeps at most repeatBlocks, and
	// a block repeated on every page survives the forgetting.
	for n := range 3 * repeatBlocks {
		page("big.example", fmt.Sprintf("block %d", n), "the template")
	}
	hb := r.shards[shardOf("big.example")].hosts["big.example"]
	if len(hb.pages) > repeatBlocks {
		t.Errorf("host remembers %d blocks, want at most %d", len(hb.pages), repeatBlocks)
	}
	if c := hb.pages[repeatSum([]byte("the template"), false)]; c < 3*repeatBlocks/2 {
		t.Errorf("the template counted on %d pages, want most of %d", c, 3*repeatBlocks)
	}
	for n := range 4 * repeatHosts {
		page(fmt.Sprintf("h%d.example", n), "a b", "c d")
	}
	hosts := 0
	for i := range r.shards {
		if len(r.shards[i].hosts) > repeatHosts/repeatShards {
			t.Errorf("shard %d holds %d hosts, want at most %d", i, len(r.shards[i].hosts), repeatHosts/repeatShards)
		}
		hosts += len(r.shards[i].hosts)
	}
	if hosts > repeatHosts {
		t.Errorf("%d hosts remembered, want at most %d", hosts, repeatHosts)
	}
}

// TestRepeatedTextConcurrent runs one extractor from many goroutines, as a
// crawl's parsers do (go test -race).
func TestRepeatedTextConcurrent(t *testing.T) {
	x := NewPageExtractor(nil, LinkOptions{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for n := range 40 {
				p := templatePage(fmt.Sprintf("h%d.example", n%3), g*40+n)
				if _, err := x.Process(t.Context(), p); err != nil {
					t.Error(err)
					return
				}
				if !strings.Contains(p.TextContent, "Unique content") {
					t.Errorf("text %q lost its content", p.TextContent)
				}
			}
		})
	}
	wg.Wait()
}

// TestRepeatedTextAtTheEnds: blocks pages share in their middle are their
// content, whatever their share; at either end they are a template's.
func TestRepeatedTextAtTheEnds(t *testing.T) {
	x := NewTextExtractor()
	shared := "<p>Specifies the host name of the machine on which the server is running.</p>"
	for n := range 2 * repeatPages {
		var body strings.Builder
		for i := range 2*repeatEnds + 10 {
			if i == repeatEnds+5 {
				body.WriteString(shared)
			}
			fmt.Fprintf(&body, "<p>block %d of page %d</p>", i, n)
		}
		body.WriteString(strings.Replace(shared, "host name", "port", 1))
		p := &Payload{URL: "http://d.example/", Body: []byte(body.String())}
		if _, err := x.Process(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.TextContent, "host name") {
			t.Fatalf("page %d: the block shared in the middle was left out", n)
		}
		if atEnd := strings.Contains(p.TextContent, "the port"); atEnd != (n < repeatPages-1) {
			t.Errorf("page %d: the block shared at the end kept: %v", n, atEnd)
		}
	}
}

// FuzzRepeatedText holds both text stages to each other while they learn a
// host's template from one page seen again and again, and to the page's
// text without the learning: what they leave out is whole blocks of it.
func FuzzRepeatedText(f *testing.F) {
	f.Add(templatePage("a.example", 1).Body)
	f.Add([]byte(`<table><tr><td><a href=/>Home</a><td><a href=/x>x</a></table><div>one two three four five</div><p>own</p>`))
	f.Add([]byte("<a href=/><p>a</p><p>b c d e f</p></a><div>\t\n</div><a>z"))
	f.Add([]byte("<h1>a b</h1><h2>c<h3>d e f g h</h3><nav><h4>n</h4></nav><h5>x<br>y</h5><h6>open"))
	f.Fuzz(func(t *testing.T, body []byte) {
		const page = "http://fuzz.example/p"
		plain := together(t, page, body).TextContent
		text, pages := NewTextExtractor(), NewPageExtractor(nil, LinkOptions{})
		for n := range repeatPages + 1 {
			a, b := &Payload{URL: page, Body: body}, &Payload{URL: page, Body: body}
			if _, err := text.Process(t.Context(), a); err != nil {
				t.Fatal(err)
			}
			if _, err := pages.Process(t.Context(), b); err != nil {
				t.Fatal(err)
			}
			if a.TextContent != b.TextContent || a.Headings != b.Headings {
				t.Fatalf("page %d: TextExtractor %q, headings %q; PageExtractor %q, headings %q", n, a.TextContent, a.Headings, b.TextContent, b.Headings)
			}
			if len(a.Headings) > maxHeadingsBytes || !wordsInOrder(a.Headings, a.TextContent) {
				t.Fatalf("page %d: headings %q (%d bytes) are not words of the text %q in order", n, a.Headings, len(a.Headings), a.TextContent)
			}
			if !wordsInOrder(a.TextContent, plain) {
				t.Fatalf("page %d: text %q is not the page's %q less whole words", n, a.TextContent, plain)
			}
		}
	})
}

// wordsInOrder reports whether the words of sub are words of text, in
// order.
func wordsInOrder(sub, text string) bool {
	words := strings.Fields(text)
	for _, w := range strings.Fields(sub) {
		for len(words) > 0 && words[0] != w {
			words = words[1:]
		}
		if len(words) == 0 {
			return false
		}
		words = words[1:]
	}
	return true
}

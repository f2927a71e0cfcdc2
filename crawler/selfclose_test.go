package crawler

import (
	"net/url"
	"slices"
	"testing"
	"time"
)

// Regression cases of the extractors: self-closed raw-text elements as
// valid XHTML writes them, and the <title> of inline SVG.
func TestSelfClosedRawTextAndForeignTitle(t *testing.T) {
	for _, c := range []struct {
		name, html, text, title string
		links                   []string
	}{
		{
			name:  "self-closed script",
			html:  `<html><body><script src="a.js"/><p>Hello</p><script>var secret=1</script><p>World</p><a href="/after">x</a></body></html>`,
			text:  "Hello World x",
			links: []string{"http://h.example/after"},
		},
		{
			name:  "self-closed iframe",
			html:  `<body><iframe src="/frame"/><p>Visible <b>text</b></p><a href="/next">next</a></body>`,
			text:  "Visible text next",
			links: []string{"http://h.example/next"},
		},
		{
			name: "unquoted src ending in a slash is not self-closing",
			html: `<body><script src=a.js/><p>Hidden</p></script><p>Shown</p></body>`,
			text: "Shown",
		},
		{
			name:  "self-closed style and textarea",
			html:  `<body><style/><p>One</p><textarea/><p>Two</p><a href="/t">t</a></body>`,
			text:  "One Two t",
			links: []string{"http://h.example/t"},
		},
		{
			name:  "svg title without body",
			html:  `<svg><title>Icon</title></svg><p>Page text</p>`,
			text:  "Page text", // an SVG title is a tooltip, not text on the page
			title: "",
		},
		{
			name:  "page title after svg",
			html:  `<html><head><svg><title>Icon</title></svg><title>Real</title></head><body>x</body></html>`,
			text:  "x",
			title: "Real",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := NewPayload([16]byte{1}, "http://h.example/", time.Time{})
			defer p.MarkAsProcessed()
			p.Body = []byte(c.html)
			if _, err := NewTextExtractor().Process(t.Context(), p); err != nil {
				t.Fatal(err)
			}
			if p.TextContent != c.text || p.Title != c.title {
				t.Errorf("text %q title %q, want %q and %q", p.TextContent, p.Title, c.text, c.title)
			}
			if c.links != nil {
				base, _ := url.Parse(p.URL)
				NewLinkExtractor(nil).extract(p, base)
				if !slices.Equal(p.Links, c.links) {
					t.Errorf("links %q, want %q", p.Links, c.links)
				}
			}
		})
	}
}

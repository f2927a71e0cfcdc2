package crawler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/linksrus/linksrus/pipeline"
)

// TestHeadings: both text stages give the text of the headings that stay
// in the page's text, a line each, with their inline markup read as text
// is; not those of the chrome, of hidden elements, of a heading left open
// or too long to be one, nor the headings its host's pages repeat (left
// out of the text); and at most maxHeadingsBytes of them.
func TestHeadings(t *testing.T) {
	long := strings.Repeat("word ", maxHeadingBytes/5+1)
	many := strings.Repeat("<h4>fn method_name(&amp;self) -&gt; usize</h4><p>Does a thing.</p>", 1000)
	for _, c := range []struct {
		name, body, want string
	}{
		{"levels", `<h1>Title <em>one</em></h1><p>text</p><h2>Sub&shy;section</h2><h6>Six</h6>`, "Title one\nSub\u00adsection\nSix"},
		{"chrome", `<nav><h2>Site menu</h2><a href=/>Home</a></nav><header><h1>Acme</h1></header><main><h1>Vacuum</h1><p>text</p></main><footer><h3>Contact</h3></footer>`, "Vacuum"},
		{"hidden", `<noscript><h1>Enable JavaScript</h1></noscript><template><h2>t</h2></template><h2>Kept</h2><p>x</p>`, "Kept"},
		{"unclosed", `<h2>First<h3>Second</h3><p>text</p><h4>left open`, "First\nSecond"},
		{"mismatched end", `<h2>Two</h3><p>after</p>`, "Two"},
		{"too long", `<h1>` + long + `</h1><h2>Short</h2><p>text</p>`, "Short"},
		{"empty", `<h1> </h1><h2><img alt="x"></h2><p>text</p>`, ""},
	} {
		for name, stage := range map[string]pipeline.Processor{
			"TextExtractor": NewTextExtractor(),
			"PageExtractor": NewPageExtractor(nil, LinkOptions{}),
		} {
			p := &Payload{URL: "http://h.example/p", Body: []byte(c.body)}
			if _, err := stage.Process(t.Context(), p); err != nil {
				t.Fatal(err)
			}
			if p.Headings != c.want {
				t.Errorf("%s, %s: headings %q, want %q (text %q)", c.name, name, p.Headings, c.want, p.TextContent)
			}
		}
	}

	p := together(t, "http://h.example/ref", []byte(many))
	if len(p.Headings) > maxHeadingsBytes || len(p.Headings) < maxHeadingsBytes-100 {
		t.Errorf("a thousand headings give %d bytes, want at most %d and near it", len(p.Headings), maxHeadingsBytes)
	}
	if first, _, _ := strings.Cut(p.Headings, "\n"); first != "fn method_name(&self) -> usize" {
		t.Errorf("first heading %q", first)
	}
}

// TestHeadingsOfTemplateLeftOut: a heading its host's pages repeat and
// that is left out of their text (a notice of 5 words or more) is left
// out of their headings; one they repeat that stays in the text (a short
// "Synopsis") stays a heading.
func TestHeadingsOfTemplateLeftOut(t *testing.T) {
	x := NewTextExtractor()
	for n := range repeatPages + 2 {
		body := fmt.Sprintf(`<h2>This site is kept by volunteers</h2><h2>Synopsis</h2><h1>Subject %[1]d</h1>
<p>Text of page %[1]d.</p><p>More text %[1]d.</p><p>Last %[1]d.</p>`, n)
		p := &Payload{URL: fmt.Sprintf("http://h.example/p%d", n), Body: []byte(body)}
		if _, err := x.Process(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("This site is kept by volunteers\nSynopsis\nSubject %d", n)
		if n >= repeatPages-1 { // the fifth page is the fifth to hold it
			want = fmt.Sprintf("Synopsis\nSubject %d", n)
			if strings.Contains(p.TextContent, "volunteers") {
				t.Fatalf("page %d: the repeated notice is still in the text %q", n, p.TextContent)
			}
		}
		if p.Headings != want {
			t.Errorf("page %d: headings %q, want %q", n, p.Headings, want)
		}
	}
}

package crawler

import (
	"testing"
	"time"
)

// The text a reader sees, per the TextExtractor's specification: words
// run on through inline elements and are separated at block-level ones,
// <br>, table cells and replaced elements. The pages are shaped after real
// ones (documentation, news, a table of data).
func TestTextAsAReaderSeesIt(t *testing.T) {
	for _, c := range []struct{ name, html, text string }{
		{"subscript", `<p>Water is H<sub>2</sub>O.</p>`, "Water is H2O."},
		{"emphasis inside a word", `<p><em>un</em>believable</p>`, "unbelievable"},
		{"drop cap", `<p><span class="dropcap">T</span>he story begins.</p>`, "The story begins."},
		{"inline code in documentation", `<p>The <code class="command">SELECT</code> command retrieves rows from <a href="sql-select.html"><code>tables</code></a>.</p>`,
			"The SELECT command retrieves rows from tables."},
		{"paragraphs and headings", `<h1>Title</h1><p>One.</p><p>Two.</p><ul><li>a</li><li>b</li></ul>`, "Title One. Two. a b"},
		{"line break", `first line<br>second line<br/>third`, "first line second line third"},
		{"table cells", `<table><tr><th>Name</th><th>Value</th></tr><tr><td>x</td><td>42</td></tr></table>`, "Name Value x 42"},
		{"image between words", `before<img src="x.png" alt="picture">after`, "before after"},
		{"links in a sentence", `See <a href="/a">the <b>manual</b></a>, chapter <a href="/b">3</a>.`, "See the manual, chapter 3."},
		{"template is not shown", `<p>shown</p><template><p>hidden</p></template>`, "shown"},
		{"ruby annotation", `<ruby>漢<rt>kan</rt>字<rt>ji</rt></ruby>`, "漢kan字ji"},
		{"divisions", `<div>left</div><div>right</div>`, "left right"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := NewPayload([16]byte{1}, "http://h.example/", time.Time{})
			defer p.MarkAsProcessed()
			p.Body = []byte(c.html)
			if _, err := NewTextExtractor().Process(t.Context(), p); err != nil {
				t.Fatal(err)
			}
			if p.TextContent != c.text {
				t.Errorf("text %q, want %q", p.TextContent, c.text)
			}
		})
	}
}

package crawler

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/microcosm-cc/bluemonday"
	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// bluemondayText is a second opinion on the parts of text extraction
// where a sanitiser and a reader agree (skipped elements, references,
// whitespace, broken markup): bluemonday's
// strict policy with a space for each stripped tag, then cleaned up.
func bluemondayText(t testing.TB, body []byte) string {
	t.Helper()
	var buf bytes.Buffer
	p := bluemonday.StrictPolicy().AddSpaceWhenStrippingTag(true)
	if err := p.SanitizeReaderToWriter(bytes.NewReader(body), &buf); err != nil {
		t.Fatalf("bluemonday: %v", err)
	}
	return cleanTextBytes(buf.Bytes(), true)
}

// strayEndTag reports whether body closes an element whose content is
// skipped more often than it opened one before. bluemonday's count of such
// elements then goes below zero, and it drops everything after the next
// one; extractText does not, so the two outputs are not compared.
func strayEndTag(body []byte) bool {
	z := xhtml.NewTokenizer(bytes.NewReader(body))
	depth := 0
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return false
		case xhtml.StartTagToken:
			if isSkipContent(z) {
				depth++
			}
		case xhtml.EndTagToken:
			if isSkipContent(z) {
				if depth--; depth < 0 {
					return true
				}
			}
		}
	}
}

// selfClosedRawTextIn reports whether body has a self-closed raw-text
// element (<script src="a.js"/>): extractText reads what follows as the
// page, as an XHTML parser would (see selfClosedRawText), while bluemonday
// follows the tokenizer into raw text and keeps it, markup and all, as
// text; the two are not compared there.
func selfClosedRawTextIn(body []byte) bool {
	z := xhtml.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return false
		case xhtml.SelfClosingTagToken:
			if selfClosedRawText(z.Raw()) {
				return true
			}
		}
	}
}

func isSkipContent(z *xhtml.Tokenizer) bool {
	name, _ := z.TagName()
	switch string(name) {
	case "frame", "frameset", "iframe", "noembed", "noframes", "noscript", "nostyle", "object", "title", "template":
		return true
	}
	return false
}

// readerOnly reports whether body has what extractText treats as a reader
// sees it and bluemonday as a sanitiser does: inline elements (no space
// between "H<sub>2</sub>O"), template contents, self-closed raw-text
// elements. Such pages are held to the specification tests instead.
func readerOnly(body []byte) bool {
	if selfClosedRawTextIn(body) {
		return true
	}
	z := xhtml.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return false
		case xhtml.StartTagToken, xhtml.EndTagToken, xhtml.SelfClosingTagToken:
			name, _ := z.TagName()
			if a := atom.Lookup(name); isInline(a) || a == atom.Template {
				return true
			}
		}
	}
}

func extractedText(t testing.TB, body []byte) string {
	t.Helper()
	var buf bytes.Buffer
	// Without chrome: bluemonday keeps navigation, as a sanitiser must.
	s, err := extractText(body, &buf, nil)
	if err != nil {
		t.Fatalf("extractText: %v", err)
	}
	return cleanTextBytes(s.text(), false)
}

var textDiffCases = []string{
	"<html><head><title>T</title><style>p{}</style></head><body><p>a<b>b</b>c</p></body></html>",
	"<p>fish &amp; chips &lt;3 &eacute; &#8364; &nbsp;x &amp;lt;</p>",
	"<script>var a = '<p>no</p>';</script>after<br/>kept<style>x</style>",
	"<noscript>js off</noscript><iframe>frame text</iframe><object>obj</object><noembed>e</noembed>",
	"<object>a<object>b</object>c</object>d<nostyle>e</nostyle>f<frameset>g</frameset>h<noframes>i</noframes>j",
	"<textarea>&lt;raw&gt; text</textarea><xmp><b>&amp;</b></xmp><plaintext><i>rest",
	"<svg><title>icon</title><script>s</script></svg><math>x<sup>2</sup></math>",
	"<!DOCTYPE html><!-- comment --><p>a</p><br/><img src=x alt=y>b<hr>",
	"<p>\xff\xfe bad \xc3</p>\r\n<p>cr\rlf</p>\x00nul",
	"<a href='x'>link</a><SCRIPT>upper</SCRIPT>Upper<Title>t</TITLE>x",
	"<script>unterminated",
	"<title>unterminated",
	"",
}

func TestExtractTextMatchesBluemonday(t *testing.T) {
	bodies := make([][]byte, 0, len(textDiffCases))
	for _, c := range textDiffCases {
		bodies = append(bodies, []byte(c))
	}
	bodies = append(bodies, benchPage())
	compared := 0
	for _, b := range bodies {
		if strayEndTag(b) {
			t.Fatalf("case %q has a stray end tag; it cannot be compared", b)
		}
		if readerOnly(b) {
			continue
		}
		compared++
		if got, want := extractedText(t, b), bluemondayText(t, b); got != want {
			t.Errorf("extractText(%q)\n = %q\nbluemonday: %q", b, got, want)
		}
	}
	if compared < len(textDiffCases)/2 {
		t.Errorf("only %d cases compared", compared)
	}
}

// A stray end tag does not swallow the rest of the page.
func TestExtractTextStrayEndTag(t *testing.T) {
	b := []byte("<p>a</noscript>b<iframe>c</iframe>d</p>")
	if got, want := extractedText(t, b), "a b d"; got != want {
		t.Errorf("extractText(%q) = %q, want %q", b, got, want)
	}
}

func FuzzExtractTextMatchesBluemonday(f *testing.F) {
	for _, c := range textDiffCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if strayEndTag(body) || readerOnly(body) {
			t.Skip()
		}
		if got, want := extractedText(t, body), bluemondayText(t, body); got != want {
			t.Errorf("extractText(%q)\n = %q\nbluemonday: %q", body, got, want)
		}
	})
}

// benchPage is a page of about 30 KB in the shape of a documentation page:
// a head with style and script, navigation links, paragraphs with inline
// markup and entities, and a table.
func benchPage() []byte {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html><html><head><meta charset=utf-8><title>Bench page</title>" +
		"<style>p{margin:0}</style><script>var x = 1;</script></head><body><nav>")
	for i := range 60 {
		fmt.Fprintf(&b, `<a href="/p/%d" class="nav">link %d</a> `, i, i)
	}
	b.WriteString("</nav>")
	for b.Len() < 30<<10 {
		b.WriteString(`<p>The <code>crawler</code> fetches pages &amp; extracts <em>links</em> and text; ` +
			`see <a href="#s">the section</a>.</p><table><tr><td>a</td><td>b&nbsp;c</td></tr></table>`)
	}
	b.WriteString("</body></html>")
	return b.Bytes()
}

// The stage's extraction against bluemonday's, on the same page.
func BenchmarkTextExtraction(b *testing.B) {
	body := benchPage()
	b.Run("bluemonday", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			bluemondayText(b, body)
		}
	})
	b.Run("extractText", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			extractedText(b, body)
		}
	})
}

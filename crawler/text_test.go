package crawler

import (
	"context"
	"testing"
	"time"
)

func TestTextExtractor(t *testing.T) {
	cases := []struct {
		name, body, title, text string
	}{
		{name: "title and text",
			body:  "<html><head><title>  The\n  Title </title></head><body><h1>Hello</h1><p>world,\n\n  again</p></body></html>",
			title: "The Title", text: "Hello world, again"},
		{name: "entities decoded",
			body:  "<title>Fish &amp; Chips &lt;3</title><p>caf&eacute; &#8364;5&nbsp;&nbsp;only &quot;today&quot; &#39;ok&#39;</p>",
			title: "Fish & Chips <3", text: "café €5 only \"today\" 'ok'"},
		{name: "script and style never appear",
			body:  "<head><style>body{color:red}</style><script>var secret = 1;</script></head><body>visible<script type=module>alert('x')</script><noscript>enable js</noscript> text</body>",
			title: "", text: "visible text"},
		{name: "block tags separate words, inline ones do not",
			body:  "<p>one</p><p>two</p><div>three<br>four</div><span>fi</span><span>ve</span>",
			title: "", text: "one two three four five"},
		{name: "title only from head",
			body:  "<body><p>text</p><title>late</title></body>",
			title: "", text: "text"},
		{name: "svg title is not the page title",
			body:  "<head><title>Page</title></head><body><svg><title>icon</title></svg>x</body>",
			title: "Page", text: "x"},
		{name: "invalid utf-8 replaced",
			body:  "<title>a\xffb</title><p>c\xfe\xfed</p>",
			title: "a\uFFFDb", text: "c\uFFFDd"}, // a run of bad bytes becomes one U+FFFD
		{name: "markup in text stays text",
			body:  "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>",
			title: "", text: "<script>alert(1)</script>"},
		{name: "empty", body: "", title: "", text: ""},
	}
	te := NewTextExtractor()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewPayload([16]byte{1}, "http://example.com/", time.Time{})
			defer p.MarkAsProcessed()
			p.Body = append(p.Body, c.body...)
			out, err := te.Process(context.Background(), p)
			if err != nil || out != p {
				t.Fatalf("Process = %v, %v", out, err)
			}
			if p.Title != c.title {
				t.Errorf("Title = %q, want %q", p.Title, c.title)
			}
			if p.TextContent != c.text {
				t.Errorf("TextContent = %q, want %q", p.TextContent, c.text)
			}
			if string(p.Body) != c.body {
				t.Errorf("body changed to %q", p.Body)
			}
		})
	}
}

func TestCleanTextBytesEntities(t *testing.T) {
	for in, want := range map[string]string{
		"&amp;&#39;&lt;&gt;&#34;&quot;":    "&'<>\"\"",
		"a &eacute;t&eacute; &foo; & x":    "a été &foo; & x",
		"&#160;nbsp&#xA0;  &#10;lines\n\n": "nbsp lines",
		"&amp":                             "&amp",
		"\xff\xfe&lt;\xff":                 "\uFFFD<\uFFFD",
		"":                                 "",
	} {
		if got := cleanTextBytes([]byte(in), true); got != want {
			t.Errorf("cleanTextBytes(%q) = %q, want %q", in, got, want)
		}
	}
}

package crawler

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// pageText is the text stage's text of body, chrome left out.
func pageText(t testing.TB, body string) string {
	t.Helper()
	var w, chrome bytes.Buffer
	s, err := extractText([]byte(body), &w, &chrome)
	if err != nil {
		t.Fatalf("extractText: %v", err)
	}
	return cleanTextBytes(s.text(), false)
}

func TestChromeLeftOut(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"nav", `<nav><a href="/">Home</a> <a href="/a">About</a></nav><p>The content.</p>`, "The content."},
		{"aside", `<p>Text</p><aside>Related posts</aside><p>more</p>`, "Text more"},
		{"site header and footer", `<header>Site name</header><main><h1>Title</h1><p>Body</p></main><footer>© 2026</footer>`, "Title Body"},
		{"an article's header and footer are its own", `<article><header>By a writer</header><p>Body</p><footer>Filed under tests</footer></article>`,
			"By a writer Body Filed under tests"},
		{"a section's header", `<section><header><h2>Part</h2></header><p>one</p></section><footer>site</footer>`, "Part one"},
		{"role navigation", `<div role="navigation"><a href="/x">x</a></div><p>kept</p>`, "kept"},
		{"role banner, contentinfo, complementary, search", `<div role=banner>b</div><div role="contentinfo">c</div><div role='complementary'>d</div><form role="search">e</form>kept`, "kept"},
		{"the first role token counts", `<div role="main navigation">kept</div><div role="navigation main">gone</div>`, "kept"},
		{"role main is content", `<div role="main">kept</div>`, "kept"},
		{"class naming navigation", `<div class="navheader"><table><tr><td>VACUUM</td><td><a href="p.html">Prev</a> <a href="u.html">Up</a></td></tr></table></div>` +
			`<div class="refentry"><h1>VACUUM</h1><p>garbage-collect a database</p></div><div class="navfooter"><a href="n.html">Next</a></div>`,
			"VACUUM garbage-collect a database"},
		{"class words", `<ul class="site-menu">m</ul><div id="sidebar">s</div><div class="breadcrumbs">b</div><div class="top-nav">t</div><div class="sidenav">n</div><div class="page-footer">f</div>kept`, "kept"},
		{"names that only contain nav", `<div class="canvas unavailable">kept</div>`, "kept"},
		{"upper case", `<NAV>gone</NAV><DIV CLASS="NavBar">gone</DIV><P>kept</P>`, "kept"},
		{"nested elements of the same name", `<div class="sidebar"><div>a</div><div>b</div>c</div><div>kept</div>`, "kept"},
		{"other elements inside", `<nav><ul><li><a href="/">x</a></li></ul></nav><p>kept</p>`, "kept"},
		{"self-closed", `<div class="nav"/>kept`, "kept"},
		{"inline elements open no chrome", `<span class="menu">kept</span> too`, "kept too"},
		{"a page of navigation only keeps it", `<nav>only links</nav>`, "only links"},
		{"a chrome element never closed", `<p></p><nav>links <p>all the rest`, "links all the rest"},
		{"broken attributes", `<div class="nav>kept`, ""},
		{"a void element opens no chrome", `<p>before</p><img class="nav-logo" src="l.png"><input id="menu-toggle"><p>after</p>`, "before after"},
		{"nor one whose end tag may be left out", `<p>before</p><ul><li class="menu-item">a<li class="menu-item">b</ul><p class="footer-note">note<div>after</div>`,
			"before a b note after"},
		{"nor the body", `<body class="has-sidebar"><nav>n</nav><p>kept</p></body>`, "kept"},
		{"script inside chrome", `<nav><script>var x = "<p>";</script>n</nav><p>kept</p>`, "kept"},
	} {
		if got := pageText(t, c.body); got != c.want {
			t.Errorf("%s: %q\n = %q, want %q", c.name, c.body, got, c.want)
		}
	}
}

// The page extractor, which reads links and text in one pass, leaves the
// chrome out of the text and keeps its links.
func TestPageExtractorLeavesChromeOut(t *testing.T) {
	x := NewPageExtractor(nil, LinkOptions{})
	p := &Payload{URL: "http://example.com/sql-vacuum.html", Body: []byte(`<html><head><title>VACUUM</title></head><body>` +
		`<div class="navheader"><a href="sql-values.html">Prev</a> <a href="sql-commands.html">Up</a></div>` +
		`<h1>VACUUM</h1><p>VACUUM reclaims storage occupied by dead tuples.</p>` +
		`<div class="navfooter"><a href="sql-insert.html">Next</a></div></body></html>`)}
	out, err := x.Process(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*Payload)
	if got.TextContent != "VACUUM VACUUM reclaims storage occupied by dead tuples." {
		t.Errorf("text %q, want the page's content without its navigation", got.TextContent)
	}
	if len(got.Links) != 3 {
		t.Errorf("links %v, want the navigation's three", got.Links)
	}
}

// checkRawChromeAttrs holds rawChromeAttrs to the tokenizer's reading of
// the attributes: for every start tag whose attributes the tokenizer does
// not rewrite, the same decision as from TagAttr.
func checkRawChromeAttrs(t *testing.T, body []byte) {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		if tt != html.StartTagToken {
			continue
		}
		raw := string(z.Raw())
		if strings.ContainsAny(raw, "&\r\x00") {
			continue // TagAttr rewrites these; rawChromeAttrs reads them as written
		}
		got := rawChromeAttrs(z.Raw())
		want := false
		seen := map[string]bool{}
		for more := true; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			key := string(k)
			if seen[key] {
				continue
			}
			seen[key] = true
			switch key {
			case "role":
				want = want || chromeRole(v)
			case "class", "id":
				want = want || chromeName(v)
			}
		}
		if got != want {
			t.Fatalf("tag %q: rawChromeAttrs = %v, from TagAttr %v", raw, got, want)
		}
	}
}

var chromeAttrSeeds = []string{
	`<div class="navheader"><div id=menu><div role=navigation><div CLASS='SideBar'><div role="main nav">`,
	`<div class><div class=><div class= nav><div =class=nav><div class="a"class="nav"><div/class=nav>`,
	"<div\tclass\n=\f'nav'\trole=\"search\"><div title='class=nav'><div data-class=nav>",
	`<div class="x" class="nav"><div role=main role=navigation><div class=a/b nav>`,
}

func TestRawChromeAttrs(t *testing.T) {
	for _, s := range chromeAttrSeeds {
		checkRawChromeAttrs(t, []byte(s))
	}
}

func FuzzRawChromeAttrs(f *testing.F) {
	for _, s := range chromeAttrSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkRawChromeAttrs(t, body) })
}

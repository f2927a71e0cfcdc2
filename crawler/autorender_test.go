package crawler

import (
	"net/url"
	"strings"
	"testing"
)

// TestReadSignals: what the static HTML says of a page's need to be
// rendered, read without the tokenizer, on the shapes pages come in.
func TestReadSignals(t *testing.T) {
	long := "<p>" + strings.Repeat("Some words of the page. ", 20) + "</p>"
	for _, c := range []struct {
		name   string
		doc    string
		want   pageSignals
		strong bool
	}{
		{"static page, not read further", `<title>T</title>` + long + `<a href="/x">x</a><div id="app"></div>`, pageSignals{}, false},
		{"react shell", `<div id="root"></div><script src="/static/js/main.js"></script>`, pageSignals{scripts: 1, mountPoint: true}, true},
		{"vue shell, unquoted, upper case", `<DIV ID=app>  </DIV><SCRIPT SRC=app.js></SCRIPT>` + long, pageSignals{scripts: 1, mountPoint: true, textBytes: 380}, true},
		{"next", `<div id='__next'></div><script>self.__next_f=[]</script>`, pageSignals{scripts: 1, mountPoint: true}, true},
		{"angular", `<app-root></app-root><script src="main.js" type="module"></script>`, pageSignals{scripts: 1, mountPoint: true}, true},
		{"mount point with content", `<div id="app"><p>Served</p></div><script src=a.js></script>` + long, pageSignals{scripts: 1, textBytes: 386}, false},
		{"noscript asks", `<script src=a.js></script><noscript>You need to enable JavaScript to run this app.</noscript>` + long, pageSignals{scripts: 1, noscriptJS: true, textBytes: 380}, true},
		{"noscript stylesheet", `<script src=a.js></script><noscript><link rel="stylesheet" href="noscript.css"></noscript>` + long, pageSignals{scripts: 1, textBytes: 380}, false},
		{"data scripts only", `<script type="application/ld+json">{"@type":"Article"}</script><script type="text/template"><div id="app"></div></script>`, pageSignals{}, false},
		{"script text is not markup", `<script>document.write('<div id="app"></div><noscript>javascript</noscript>')</script>` + long, pageSignals{scripts: 1, textBytes: 380}, false},
		{"commented out", `<!-- <script src=a.js></script> <div id="app"></div> -->` + long, pageSignals{textBytes: 380}, false},
		{"upper-case script", `<SCRIPT SRC=a.js></SCRIPT>` + long, pageSignals{scripts: 1, textBytes: 380}, false},
		{"sparse scripted page", `<title>Menu</title><script src=m.js></script><p>Loading…</p>`, pageSignals{scripts: 1, textBytes: 14}, true},
		{"unterminated", `<script src=a.js>var a = "`, pageSignals{scripts: 1}, true},
		{"a look-alike is not a script", `<script>x</script><ſcript src=a.js></ſcript>` + long, pageSignals{scripts: 1, textBytes: 380}, false},
		{"open tag at the end", `<script>x</script><p>text</p><div id="app"`, pageSignals{scripts: 1, textBytes: 4}, true},
	} {
		got := readSignals([]byte(c.doc))
		if got != c.want || got.strong() != c.strong {
			t.Errorf("%s: %+v (strong %v), want %+v (strong %v)", c.name, got, got.strong(), c.want, c.strong)
		}
	}
}

// TestReadPage: what learn compares, the links (absolute, without
// fragments) and words of the text outside scripts and styles.
func TestReadPage(t *testing.T) {
	base, _ := url.Parse("http://h.example/docs/a")
	r := readPage([]byte(`<p>Hello, World</p><script>var hidden</script><style>.x{}</style><a href="b#s">B</a><area href="/c">`), base)
	for _, l := range []string{"http://h.example/docs/b", "http://h.example/c"} {
		if !r.links[l] {
			t.Errorf("links %v, without %s", r.links, l)
		}
	}
	if len(r.words) != 3 || !r.words["hello"] || !r.words["world"] || !r.words["b"] || r.words["hidden"] {
		t.Errorf("words %v, want hello, world, b", r.words)
	}
}

// FuzzReadSignals: any input is read without a panic, and counts stay
// within the input.
func FuzzReadSignals(f *testing.F) {
	for _, seed := range []string{
		`<div id="root"></div><script src=a.js></script>`,
		`<!-- <script`, `<script>`, `<noscript>javascript`, `<div id=`, `<div id='x`, `<a id = "app" >`, `<`, `<!--->`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		s := readSignals(doc)
		if s.textBytes > len(doc) || s.scripts > len(doc) {
			t.Fatalf("%+v from %d bytes", s, len(doc))
		}
	})
}

// BenchmarkReadSignals reads the signals of every page of the PostgreSQL
// documentation (no script), which RenderAuto does for every page of a
// crawl, beside BenchmarkTokenizeOnly's yardstick: ns/op per corpus pass.
func BenchmarkReadSignals(b *testing.B) {
	_, bodies := pgDocsPages(b)
	var n int64
	for _, body := range bodies {
		n += int64(len(body))
	}
	b.SetBytes(n)
	for b.Loop() {
		for _, body := range bodies {
			readSignals(body)
		}
	}
}

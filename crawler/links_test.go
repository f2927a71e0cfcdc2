package crawler

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"github.com/linksrus/linksrus/crawler/mocks"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/crawler/urlnorm"
)

func extractFrom(t *testing.T, e *LinkExtractor, pageURL, body string) *Payload {
	t.Helper()
	p := NewPayload([16]byte{1}, pageURL, time.Time{})
	p.Body = append(p.Body, body...)
	out, err := e.Process(context.Background(), p)
	if err != nil || out != p {
		t.Fatalf("Process = %v, %v", out, err)
	}
	return p
}

func TestLinkExtractorHostileInput(t *testing.T) {
	const page = "https://example.com/dir/page.html"
	cases := []struct {
		name     string
		body     string
		links    []string
		noFollow []string
		noIndex  bool
	}{
		{name: "quoting styles",
			body:  `<a href="/d">1</a><a href='/s'>2</a><a href=/u>3</a><A HREF = "/upper">4</A>`,
			links: []string{"https://example.com/d", "https://example.com/s", "https://example.com/u", "https://example.com/upper"}},
		{name: "relative and network-path references",
			body:  `<a href="sib">s</a><a href="../up">u</a><a href="//other.org/x">n</a><a href="?q=1">q</a><a href="http://abs.net">a</a>`,
			links: []string{"https://example.com/dir/sib", "https://example.com/up", "https://other.org/x", "https://example.com/dir/page.html?q=1", "http://abs.net/"}},
		{name: "fragments removed and deduplicated",
			body:  `<a href="/a#x">1</a><a href="/a#y">2</a><a href="/a">3</a><a href="#top">self</a><a href="">empty</a>`,
			links: []string{"https://example.com/a"}},
		{name: "base href",
			body:  `<head><base href="https://cdn.example.net/root/"><base href="https://ignored.example/"></head><a href="p">p</a><a href="/abs">a</a>`,
			links: []string{"https://cdn.example.net/root/p", "https://cdn.example.net/abs"}},
		{name: "relative base href",
			body:  `<base href="/other/"><a href="p">p</a>`,
			links: []string{"https://example.com/other/p"}},
		{name: "javascript base ignored",
			body:  `<base href="javascript:alert(1)//"><a href="p">p</a>`,
			links: []string{"https://example.com/dir/p"}},
		{name: "non-http schemes",
			body:  `<a href="javascript:alert(1)">j</a><a href="mailto:a@b.c">m</a><a href="file:///etc/passwd">f</a><a href="data:text/html,x">d</a><a href="ftp://x.org/">f</a><a href=" JavaScript:x">j</a><a href="tel:123">t</a>`,
			links: nil},
		{name: "obfuscated javascript scheme",
			body:  "<a href=\"java\tscript:alert(1)\">j</a><a href=\"\x01javascript:x\">c</a>",
			links: nil},
		{name: "rel nofollow in any form",
			body:     `<a href="/n1" rel="nofollow">1</a><a href="/n2" rel="external NoFollow noopener">2</a><a href="/f" rel="nofollowx">3</a><a rel=NOFOLLOW href=/n3>4</a>`,
			links:    []string{"https://example.com/f"},
			noFollow: []string{"https://example.com/n1", "https://example.com/n2", "https://example.com/n3"}},
		{name: "followed anywhere wins",
			body:     `<a href="/x" rel="nofollow">1</a><a href="/y" rel="nofollow">2</a><a href="/x">3</a><a href="/y" rel="nofollow">4</a>`,
			links:    []string{"https://example.com/x"},
			noFollow: []string{"https://example.com/y"}},
		{name: "meta robots nofollow",
			body:     `<meta name="ROBOTS" content="NoFollow"><a href="/a">a</a><a href="/b" rel="nofollow">b</a>`,
			noFollow: []string{"https://example.com/b", "https://example.com/a"}},
		{name: "meta robots none",
			body:     `<meta content="none" name="robots"><a href="/a">a</a>`,
			noFollow: []string{"https://example.com/a"}, noIndex: true},
		{name: "meta robots noindex only",
			body:  `<meta name="robots" content="noindex, follow"><a href="/a">a</a>`,
			links: []string{"https://example.com/a"}, noIndex: true},
		{name: "other meta ignored",
			body:  `<meta name="googlebot" content="noindex,nofollow"><meta name="description" content="nofollow"><a href="/a">a</a>`,
			links: []string{"https://example.com/a"}},
		{name: "links in script, style, comments and attributes are not links",
			body:  `<script>var s = '<a href="/js">';</script><style>a[href="/css"]{}</style><!-- <a href="/comment"> --><textarea><a href="/ta"></textarea><div title='<a href="/attr">'></div><a href="/real">r</a>`,
			links: []string{"https://example.com/real"}},
		{name: "area and self-closing",
			body:  `<map><area href="/area"/></map><a href="/sc"/>`,
			links: []string{"https://example.com/area", "https://example.com/sc"}},
		{name: "first href wins",
			body:  `<a href="/first" href="/second">x</a>`,
			links: []string{"https://example.com/first"}},
		{name: "a without href",
			body:  `<a name="anchor">x</a><a>y</a><a href>z</a>`,
			links: nil},
		{name: "private and local hosts dropped without DNS",
			body:  `<a href="http://127.0.0.1/">1</a><a href="http://[::1]:8080/">2</a><a href="http://2130706433/">3</a><a href="http://0x7f.1/">4</a><a href="http://localhost/">5</a><a href="http://169.254.169.254/latest/meta-data">6</a><a href="http://intranet/">7</a><a href="http://printer.local/">8</a><a href="http://%31%32%37.0.0.1/">9</a><a href="http://[::ffff:10.0.0.1]/">10</a><a href="http://public.example.org/">ok</a>`,
			links: []string{"http://public.example.org/"}},
		{name: "user info stripped",
			body:  `<a href="http://user:pass@example.org/x">1</a><a href="http://example.com@evil.example/">2</a>`,
			links: []string{"http://example.org/x", "http://evil.example/"}},
		{name: "non-html extensions dropped",
			body:  `<a href="/i.PNG">i</a><a href="/d.pdf?v=2">d</a><a href="/ok.html">ok</a>`,
			links: []string{"https://example.com/ok.html"}},
		{name: "backslashes and whitespace as browsers read them",
			body:  "<a href=\"  /trim  \">t</a><a href=\"/new\nline\">n</a><a href=\"\\\\evil.example\\x\">b</a>",
			links: []string{"https://example.com/trim", "https://example.com/newline", "https://evil.example/x"}},
		{name: "entities in href decoded",
			body:  `<a href="/q?a=1&amp;b=2">x</a><a href="/&#x70;ath">y</a>`,
			links: []string{"https://example.com/q?a=1&b=2", "https://example.com/path"}},
		{name: "hrefs browsers refuse",
			body:  `<a href="http://[::1">1</a><a href="http://exa mple.com/">2</a><a href="http://:80/">4</a><a href="http://256.256.256.256/">5</a>`,
			links: []string{}},
		{name: "hrefs browsers accept and net/url refuses",
			// A stray '%' is a literal '%'; "http:///name" has the host
			// "name" (a local name here, dropped by the private-network
			// filter); a scheme starts with a letter.
			body:  `<a href="%zz">3</a><a href="http:///nohost">5</a><a href="12:30.html">6</a>`,
			links: []string{"https://example.com/dir/%25zz", "https://example.com/dir/12:30.html"}},
		{name: "overlong link dropped",
			body:  `<a href="/` + strings.Repeat("x", MaxURLLength) + `">long</a><a href="/short">s</a>`,
			links: []string{"https://example.com/short"}},
		{name: "unterminated markup",
			body:  `<a href="/a">a</a><a href="/b`,
			links: []string{"https://example.com/a"}},
		{name: "nul bytes and garbage",
			body:  "<a href=\"/a\x00b\">x</a>\x00\xff\xfe<a href='/ok'>",
			links: []string{"https://example.com/a%EF%BF%BDb", "https://example.com/ok"}},
		{name: "empty page", body: "", links: nil},
	}
	e := NewLinkExtractor(privnet.New())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := extractFrom(t, e, page, c.body)
			defer p.MarkAsProcessed()
			if !slices.Equal(p.Links, c.links) {
				t.Errorf("Links = %q, want %q", p.Links, c.links)
			}
			if !slices.Equal(p.NoFollowLinks, c.noFollow) {
				t.Errorf("NoFollowLinks = %q, want %q", p.NoFollowLinks, c.noFollow)
			}
			if p.NoIndex != c.noIndex {
				t.Errorf("NoIndex = %v, want %v", p.NoIndex, c.noIndex)
			}
		})
	}
}

// Relative links resolve against the URL the body came from.
func TestLinkExtractorUsesFinalURL(t *testing.T) {
	p := NewPayload([16]byte{1}, "http://example.com/old/", time.Time{})
	defer p.MarkAsProcessed()
	p.FinalURL = "https://www.example.com/new/"
	p.Body = append(p.Body, `<a href="x">x</a>`...)
	if _, err := NewLinkExtractor(nil).Process(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://www.example.com/new/x"}; !slices.Equal(p.Links, want) {
		t.Fatalf("Links = %q, want %q", p.Links, want)
	}
}

// The detector is consulted for each distinct host, with the bare host name.
func TestLinkExtractorConsultsDetector(t *testing.T) {
	ctrl := gomock.NewController(t)
	d := mocks.NewMockPrivateNetworkDetector(ctrl)
	d.EXPECT().IsPrivate("good.example").Return(false, nil)
	d.EXPECT().IsPrivate("bad.example").Return(true, nil)
	d.EXPECT().IsPrivate("weird.example").Return(false, errors.New("malformed"))
	p := extractFrom(t, NewLinkExtractor(d), "http://good.example/",
		`<a href="/a">a</a><a href="http://bad.example:8080/">b</a><a href="http://weird.example/">w</a><a href="/a#dup">dup</a>`)
	defer p.MarkAsProcessed()
	if want := []string{"http://good.example/a"}; !slices.Equal(p.Links, want) {
		t.Fatalf("Links = %q, want %q", p.Links, want)
	}
}

func TestLinkExtractorRejectsForeignPayload(t *testing.T) {
	if _, err := NewLinkExtractor(nil).Process(context.Background(), foreignPayload{}); !errors.Is(err, ErrUnexpectedPayload) {
		t.Fatalf("err = %v, want ErrUnexpectedPayload", err)
	}
}

func TestResolveLink(t *testing.T) {
	const base = "http://example.com/a/b?q#f"
	for href, want := range map[string]string{
		"c":                                      "http://example.com/a/c",
		"/c":                                     "http://example.com/c",
		"//h.org":                                "http://h.org/",
		"https://h.org/p#x":                      "https://h.org/p",
		"?z":                                     "http://example.com/a/b?z",
		"?":                                      "http://example.com/a/b",
		"../../../../x":                          "http://example.com/x",
		"HTTP://H.ORG/":                          "http://h.org/",
		"http://u@h.org/":                        "http://h.org/",
		"#frag":                                  "",
		"":                                       "",
		" \t":                                    "",
		"http:#frag":                             "",
		"mailto:x@y":                             "",
		"http:opaque":                            "http://example.com/a/opaque", // relative, as browsers resolve it (WHATWG)
		"https://h.org:99999":                    "",
		"/" + strings.Repeat("x", MaxURLLength):  "",
		strings.Repeat("./", MaxURLLength) + "x": "http://example.com/a/x",
		strings.Repeat(" ", maxHrefLength) + "x": "",
	} {
		got, u := resolveLink(base, href, urlnorm.Options{})
		if got != want || (u == nil) != (want == "") {
			t.Errorf("resolveLink(%q) = %q, %v; want %q", href, got, u, want)
		}
		if u != nil && u.String() != got {
			t.Errorf("resolveLink(%q): parsed form %q, link %q", href, u, got)
		}
	}
}

// Links are normalised before de-duplication: the spellings of one URL
// become one link, stored in canonical form.
func TestLinkExtractorNormalizes(t *testing.T) {
	const body = `<a href="HTTP://Example.COM:80/a/./b/../c?">1</a>
		<a href="http://example.com/a/c">2</a>
		<a href="http://example.com/%7Euser/%e2%82%ac" rel=nofollow>3</a>
		<a href="http://example.com/~user/%E2%82%AC">4</a>
		<a href="http://bücher.example./x">5</a>
		<a href="http://example.com/q?b=2&utm_source=x&a=1">6</a>
		<a href="http://example.com/q?a=1&b=2">7</a>
		<a href="http://example.com:0/">bad port</a>`
	cases := []struct {
		name string
		opts LinkOptions
		want []string
	}{
		{name: "default", want: []string{
			"http://example.com/a/c",
			"http://example.com/~user/%E2%82%AC",
			"http://xn--bcher-kva.example/x",
			"http://example.com/q?b=2&utm_source=x&a=1",
			"http://example.com/q?a=1&b=2",
		}},
		{name: "sort and strip", opts: LinkOptions{Normalization: urlnorm.Options{SortQuery: true, StripTracking: true}}, want: []string{
			"http://example.com/a/c",
			"http://example.com/~user/%E2%82%AC",
			"http://xn--bcher-kva.example/x",
			"http://example.com/q?a=1&b=2",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := extractFrom(t, NewLinkExtractorWithOptions(nil, c.opts), "http://example.com/", body)
			defer p.MarkAsProcessed()
			if !slices.Equal(p.Links, c.want) {
				t.Errorf("Links = %q, want %q", p.Links, c.want)
			}
			if len(p.NoFollowLinks) != 0 {
				t.Errorf("NoFollowLinks = %q, want none: the followed spelling wins", p.NoFollowLinks)
			}
			for _, l := range p.Links {
				if n, err := urlnorm.Normalize(l, c.opts.Normalization); err != nil || n != l {
					t.Errorf("stored link %q is not canonical: %q, %v", l, n, err)
				}
			}
		})
	}
}

// TestLinkTexts: a link's words are the text inside its <a> (inline
// elements joined, others separating words, images by their alt text) or
// an <area>'s alt text, cleaned and cut at MaxLinkText; a page's other
// links to the same URL add what they say differently; links not followed
// keep none.
func TestLinkTexts(t *testing.T) {
	const page = "https://example.com/dir/page.html"
	long := strings.Repeat("word ", 40)
	cases := []struct {
		name  string
		body  string
		links []string
		texts []string
	}{
		{name: "plain and nested inline",
			body:  `<a href="/a">The <code>psql</code>  Tool</a><a href="/b"><span>Foreign</span> <em>Keys</em></a>`,
			links: []string{"https://example.com/a", "https://example.com/b"},
			texts: []string{"The psql Tool", "Foreign Keys"}},
		{name: "block elements separate words, images give alt text",
			body:  `<a href="/a"><div>one</div><div>two</div></a><a href="/i"><img src="x.png" alt="Logo"></a><a href="/e"><img src="y.png"></a>`,
			links: []string{"https://example.com/a", "https://example.com/i", "https://example.com/e"},
			texts: []string{"one two", "Logo", ""}},
		{name: "area alt text",
			body:  `<map><area href="/m" alt="Map region"><area href="/n"></map>`,
			links: []string{"https://example.com/m", "https://example.com/n"},
			texts: []string{"Map region", ""}},
		{name: "repeated link adds only new words",
			body:  `<a href="/a">VACUUM</a><a href="/a">vacuum</a><a href="/a#x">garbage collection</a>`,
			links: []string{"https://example.com/a"},
			texts: []string{"VACUUM; garbage collection"}},
		{name: "unclosed anchor ends at the next and at the end",
			body:  `<a href="/a">first<a href="/b">second`,
			links: []string{"https://example.com/a", "https://example.com/b"},
			texts: []string{"first", "second"}},
		{name: "long text cut at a word",
			body:  `<a href="/a">` + long + `</a>`,
			links: []string{"https://example.com/a"},
			texts: []string{strings.TrimSpace(strings.Repeat("word ", MaxLinkText/5))}},
		{name: "nofollow and dropped links keep no words",
			body:  `<a rel="nofollow" href="/n">hidden</a><a href="javascript:x">js</a><a href="/f">kept</a>`,
			links: []string{"https://example.com/f"},
			texts: []string{"kept"}},
		{name: "nofollow promoted by a followed occurrence",
			body:  `<a rel="nofollow" href="/n">first</a><a href="/n">second</a>`,
			links: []string{"https://example.com/n"},
			texts: []string{"second"}},
		{name: "text outside links is not a link's",
			body:  `before <a href="/a">in</a> after</a> more`,
			links: []string{"https://example.com/a"},
			texts: []string{"in"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, e := range []*LinkExtractor{NewLinkExtractor(nil), {detector: privnet.New(), general: true}} {
				p := extractFrom(t, e, page, c.body)
				if !slices.Equal(p.Links, c.links) || !slices.Equal(p.LinkTexts, c.texts) {
					t.Errorf("general=%v: links %q texts %q, want %q %q", e.general, p.Links, p.LinkTexts, c.links, c.texts)
				}
				for i, l := range p.LinkTexts {
					if len(l) > MaxLinkText || p.LinkText(i) != l {
						t.Errorf("text %d: %q", i, l)
					}
				}
			}
			p := together(t, page, []byte(c.body))
			if !slices.Equal(p.LinkTexts, c.texts) {
				t.Errorf("PageExtractor: texts %q, want %q", p.LinkTexts, c.texts)
			}
		})
	}
}

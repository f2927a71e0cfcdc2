package crawler

import (
	"bytes"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// classifyTagName is rawTagName's job done with the tokenizer's TagName.
func classifyTagName(name []byte) tagKind {
	switch string(name) {
	case "a", "area":
		return tagLink
	case "base":
		return tagBase
	case "meta":
		return tagMeta
	}
	return tagOther
}

// checkRawTagNames fails when rawTagName and TagName classify a start tag
// of body differently, or rawTagAtom and TagName find another atom for a
// tag of any kind.
func checkRawTagNames(t *testing.T, body []byte) {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken && tt != html.EndTagToken {
			continue
		}
		raw := string(z.Raw())
		gotAtom, gotNostyle := rawTagAtom(z.Raw(), tt == html.EndTagToken)
		name, _ := z.TagName()
		want := atom.Lookup(name)
		if textAtom([]byte(want.String())) != want {
			want = 0 // a tag the text scan treats as an unknown one
		}
		if gotAtom != want || gotNostyle != (string(name) == "nostyle") {
			t.Fatalf("tag %q: rawTagAtom %v (nostyle %v), TagName %q gives %v", raw, gotAtom, gotNostyle, name, want)
		}
		if tt == html.EndTagToken {
			continue
		}
		got := rawTagName(z.Raw())
		if want := classifyTagName(name); got != want {
			t.Fatalf("tag %q: rawTagName %v, TagName %q gives %v", raw, got, name, want)
		}
	}
}

var tagNameSeeds = []string{
	`<a href=x><A HREF=y><area/><AREA><base href=/><BaSe><meta name=robots><META>`,
	"<a\thref=x><a\nhref=y><a\fz><a/><a>",
	"<abbr><ab><aside><b><basefont><metadata><a\x00><base\x00 href=x>",
	"<a", "<area", "<meta name=x", "<baſe href=x><ａ href=x>",
	`<script><a href=x></script><style><meta></style><textarea><base></textarea><a href=y>`,
	"</P></p ></DIV\t><nostyle></NOSTYLE><nostyle\x00></a\x00></div/></ div></></p",
	"<annotation-xml></ANNOTATION-XML><foreignobjectandmoreletters></foreignobjectandmoreletters>",
	"<svg><title>x</TITLE></svg><math><Title/></math><SCRIPT>a</SCRIPT><sTyLe>b</style>",
}

func TestRawTagName(t *testing.T) {
	for _, s := range tagNameSeeds {
		checkRawTagNames(t, []byte(s))
	}
}

func FuzzRawTagName(f *testing.F) {
	for _, s := range tagNameSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkRawTagNames)
}

// checkRawLinkAttrs fails when rawLinkAttrs, on a tag it reads, finds other
// href and rel attributes than linkAttrs.
func checkRawLinkAttrs(t *testing.T, body []byte) (read int) {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return read
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		raw := string(z.Raw())
		href, rel, ok, handled := rawLinkAttrs(z.Raw())
		// Copied, since TagAttr rewrites the tokenizer's buffer in place.
		gotHref, gotRel := string(href), string(rel)
		wantHref, wantRel, _, wantOK := linkAttrs(z)
		if !handled {
			continue
		}
		read++
		if gotHref != string(wantHref) || gotRel != string(wantRel) || ok != wantOK {
			t.Fatalf("tag %q: rawLinkAttrs = %q, %q, %v; linkAttrs = %q, %q, %v",
				raw, gotHref, gotRel, ok, wantHref, wantRel, wantOK)
		}
	}
}

var linkAttrSeeds = []string{
	`<a href="/d">1</a><a href='/s'>2</a><a href=/u>3</a><A HREF = "/upper">4</A>`,
	`<a href="/n1" rel="nofollow"><a rel=NOFOLLOW href=/n3><a href="/first" href="/second" rel=a rel=b>`,
	`<a name="anchor"><a><a href><a href=><a href= ><a href=>x><a/href=x><a =href=y><a href=x/>`,
	"<a\thref\n=\f'x'\trel=\"a b\"><area href=\"/area\"/><a href=\"  /trim  \">",
	`<a href="q?a=1&amp;b=2"><a href="/&#x70;ath"><a href="a\rb">`,
	"<a href=\"/a\x00b\"><a title='<a href=\"/attr\">' href=y><a href=\"x>y\">",
	`<a href="x"rel="y"><a href='x'/rel=y><a href=x rel='y'z>`,
}

func TestRawLinkAttrs(t *testing.T) {
	read := 0
	for _, s := range linkAttrSeeds {
		read += checkRawLinkAttrs(t, []byte(s))
	}
	if read < 20 {
		t.Fatalf("rawLinkAttrs read %d tags of the seeds, want at least 20", read)
	}
}

func FuzzRawLinkAttrs(f *testing.F) {
	for _, s := range linkAttrSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkRawLinkAttrs(t, body) })
}

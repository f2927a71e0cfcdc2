package crawler

import (
	"bytes"
	"testing"

	"golang.org/x/net/html"
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
// of body differently.
func checkRawTagNames(t *testing.T, body []byte) {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		raw := string(z.Raw())
		got := rawTagName(z.Raw())
		name, _ := z.TagName()
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

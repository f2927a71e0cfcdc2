package crawler

import (
	"encoding/json"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler/urlnorm"
)

// allowAll is a PrivateNetworkDetector that keeps every host, so that the
// conformance run measures resolution alone.
type allowAll struct{}

func (allowAll) IsPrivate(string) (bool, error) { return false, nil }

// wptCase is one entry of the web-platform-tests file url/resources/urltestdata.json.
type wptCase struct {
	Input   string  `json:"input"`
	Base    *string `json:"base"`
	Href    string  `json:"href"`
	Failure bool    `json:"failure"`
}

// TestWPTURLConformance runs link resolution and link extraction over the
// web-platform-tests URL parsing cases that concern a crawler of http(s)
// pages: those with an http(s) base (the page), and those with an http(s)
// result (resolved on a page of the other scheme, where an absolute URL
// means what it means without a base). The expected link is the standard's
// result in the crawler's canonical form, or none where the standard fails
// or names no host a resolver looks up; links to the page itself may be
// dropped, as the crawler does on purpose.
//
// The file is the WPT project's and not part of this repository: point
// LINKSRUS_WPT_URLTESTDATA at a copy of url/resources/urltestdata.json to
// run it. The rules it checks have tests of their own in whatwg_test.go.
func TestWPTURLConformance(t *testing.T) {
	path := os.Getenv("LINKSRUS_WPT_URLTESTDATA")
	if path == "" {
		t.Skip("LINKSRUS_WPT_URLTESTDATA not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	e := NewLinkExtractor(allowAll{})
	var total, resolved, extracted, self int
	for _, r := range raw {
		var c wptCase
		if json.Unmarshal(r, &c) != nil || c.Input == "" && c.Base == nil {
			continue // a comment
		}
		base := ""
		if c.Base != nil {
			base = *c.Base
		}
		httpBase := strings.HasPrefix(base, "http://") || strings.HasPrefix(base, "https://")
		httpResult := !c.Failure && (strings.HasPrefix(c.Href, "http://") || strings.HasPrefix(c.Href, "https://"))
		if !httpBase && !httpResult {
			continue
		}
		page := base
		if !httpBase {
			page = "https://base.invalid/"
			if strings.HasPrefix(strings.ToLower(strings.TrimSpace(c.Input)), "https:") {
				page = "http://base.invalid/"
			}
		}
		pageURL, err := url.Parse(page)
		if err != nil {
			continue // a page the crawler never fetches
		}
		total++
		var want string
		if httpResult {
			// urlnorm drops user info and fragment.
			if want, err = urlnorm.Normalize(c.Href, urlnorm.Options{}); err != nil {
				t.Logf("no host to look up in %q: %v", c.Href, err)
				want = ""
			}
		}
		canonicalPage, _ := urlnorm.Normalize(page, urlnorm.Options{})
		isSelf := want != "" && want == canonicalPage
		ok := func(got string) bool { return got == want || isSelf && got == "" }

		got, _ := resolveLink(pageURL.String(), c.Input, urlnorm.Options{})
		if ok(got) {
			resolved++
			if isSelf && got == "" {
				self++
			}
		} else {
			t.Errorf("resolving %q on %q: got %q, want %q (WHATWG %q)", c.Input, page, got, want, c.Href)
		}

		p := NewPayload([16]byte{1}, page, time.Time{})
		p.Body = []byte(`<a href="` + htmlAttr(c.Input) + `">x</a>`)
		e.extract(p, pageURL)
		links := slices.Concat(p.Links, p.NoFollowLinks)
		p.MarkAsProcessed()
		switch {
		case len(links) <= 1 && ok(strings.Join(links, "")):
			extracted++
		case strings.Contains(c.Input, "\x00"):
			// HTML turns U+0000 in an attribute into U+FFFD before
			// any URL parsing, in browsers as in x/net/html.
			t.Logf("extracting %q on %q: got %q (HTML replaces U+0000)", c.Input, page, links)
		default:
			t.Errorf("extracting %q on %q: got %q, want %q (WHATWG %q)", c.Input, page, links, want, c.Href)
		}
	}
	t.Logf("WPT URL cases for http(s) links: %d; resolved as the standard does: %d (%.1f%%, %d self-links dropped); extracted from HTML: %d (%.1f%%)",
		total, resolved, 100*float64(resolved)/float64(total), self, extracted, 100*float64(extracted)/float64(total))
}

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

// TestWPTURLConformance runs link extraction over the web-platform-tests
// URL parsing cases that concern a crawler of http(s) pages: those with an
// http(s) base (the page), and those with an http(s) result. The file is
// not part of the repository (it is the WPT project's): point
// LINKSRUS_WPT_URLTESTDATA at a copy of url/resources/urltestdata.json to
// run it. The cases the package's own tests must pass are written out in
// whatwg_test.go.
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
	var total, pass, self int
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
			// An absolute reference resolves on a page of another special
			// scheme as without a base.
			page = "https://base.invalid/"
			if strings.HasPrefix(strings.ToLower(strings.TrimSpace(c.Input)), "https:") {
				page = "http://base.invalid/"
			}
		}
		var want string
		var err error
		if httpResult {
			// The crawler's canonical form of the standard's result
			// (urlnorm drops user info and fragment).
			want, err = urlnorm.Normalize(c.Href, urlnorm.Options{})
			if err != nil {
				// A host no resolver looks up: nothing to fetch.
				t.Logf("unfetchable %q: %v", c.Href, err)
				want = ""
			}
		}
		isSelf := false
		if want != "" {
			nb, _ := urlnorm.Normalize(page, urlnorm.Options{})
			isSelf = nb == want
		}
		p := NewPayload([16]byte{1}, page, time.Time{})
		p.Body = []byte(`<a href="` + htmlAttr(c.Input) + `">x</a>`)
		pb, perr := url.Parse(page)
		if perr != nil {
			p.MarkAsProcessed()
			continue // a page the crawler never fetches
		}
		total++
		e.extract(p, pb)
		got := slices.Concat(p.Links, p.NoFollowLinks)
		p.MarkAsProcessed()
		var wantLinks []string
		if want != "" {
			wantLinks = []string{want}
		}
		switch {
		case slices.Equal(got, wantLinks):
			pass++
		case isSelf && len(got) == 0:
			pass++
			self++
		default:
			t.Logf("FAIL input %q base %q: got %q, want %q (WHATWG %q)", c.Input, base, got, wantLinks, c.Href)
		}
	}
	t.Logf("WPT URL cases for http(s) links: %d of %d pass (%.1f%%), %d of them self-links dropped", pass, total, 100*float64(pass)/float64(total), self)
}

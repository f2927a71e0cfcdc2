package robots

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jimsmart/grobotstxt"
)

var ruleCases = []struct {
	name, body, path string
	want             bool
}{
	{"empty file", "", "/x", true},
	{"disallow all", "User-agent: *\nDisallow: /\n", "/x", false},
	{"empty disallow", "User-agent: *\nDisallow:\n", "/x", true},
	{"longest match allow", "User-agent: *\nDisallow: /a\nAllow: /a/b\n", "/a/b/c", true},
	{"longest match disallow", "User-agent: *\nAllow: /a\nDisallow: /a/b\n", "/a/b/c", false},
	{"tie goes to allow", "User-agent: *\nDisallow: /a\nAllow: /a\n", "/a", true},
	{"wildcard", "User-agent: *\nDisallow: /*.pdf$\n", "/docs/x.pdf", false},
	{"dollar anchors", "User-agent: *\nDisallow: /*.pdf$\n", "/docs/x.pdf?v=1", true},
	{"query matched", "User-agent: *\nDisallow: /*?session=\n", "/p?session=1", false},
	{"specific group wins", "User-agent: *\nDisallow: /\n\nUser-agent: linksrus\nDisallow: /private\n", "/public", true},
	{"specific group rules", "User-agent: *\nDisallow: /\n\nUser-agent: linksrus\nDisallow: /private\n", "/private/x", false},
	{"specific empty group allows", "User-agent: *\nDisallow: /\n\nUser-agent: LinksRUs\n", "/x", true},
	{"product token with version", "User-agent: linksrus/2.0\nDisallow: /\n", "/x", false},
	{"other agent ignored", "User-agent: otherbot\nDisallow: /\n", "/x", true},
	{"grouped agents", "User-agent: a\nUser-agent: linksrus\nDisallow: /g\n", "/g", false},
	{"percent unreserved equal", "User-agent: *\nDisallow: /%7Euser\n", "/~user/x", false},
	{"percent path decoded", "User-agent: *\nDisallow: /~user\n", "/%7euser/x", false},
	{"percent reserved kept", "User-agent: *\nDisallow: /a%2Fb\n", "/a/b", true},
	{"non-ascii pattern", "User-agent: *\nDisallow: /ü\n", "/%C3%BC", false},
	{"typo disalow", "User-agent: *\nDisalow: /x\n", "/x", false},
	{"index.html allows dir", "User-agent: *\nDisallow: /d/\nAllow: /d/index.html\n", "/d/", true},
	{"comments and CRLF", "# hi\r\nUser-agent: * # all\r\nDisallow: /x # no\r\n", "/x", false},
	{"BOM", "\xEF\xBB\xBFUser-agent: *\nDisallow: /x\n", "/x", false},
	{"rules before agent ignored", "Disallow: /x\nUser-agent: *\nAllow: /\n", "/x", true},
}

func TestRulesAllowed(t *testing.T) {
	for _, tt := range ruleCases {
		r := Parse([]byte(tt.body), "linksrus")
		if got := r.Allowed(tt.path); got != tt.want {
			t.Errorf("%s: Allowed(%q) = %v, want %v", tt.name, tt.path, got, tt.want)
		}
	}
	if !Parse([]byte("User-agent: *\nDisallow: /x\n"), "linksrus").Allowed("") {
		t.Error(`Allowed("") should mean "/"`)
	}
}

// TestRulesMatchGrobotstxt checks the compiled rules against the library's
// own matcher on every case without percent signs (where this package
// deliberately decodes unreserved escapes, RFC 9309 2.2.2).
func TestRulesMatchGrobotstxt(t *testing.T) {
	for _, tt := range ruleCases {
		if strings.Contains(tt.body+tt.path, "%") {
			continue
		}
		want := grobotstxt.AgentAllowed(tt.body, "linksrus", "http://h"+tt.path)
		if got := Parse([]byte(tt.body), "linksrus").Allowed(tt.path); got != want {
			t.Errorf("%s: Allowed(%q) = %v, grobotstxt says %v", tt.name, tt.path, got, want)
		}
	}
}

func TestCrawlDelay(t *testing.T) {
	tests := []struct {
		body string
		want time.Duration
		ok   bool
	}{
		{"User-agent: *\nCrawl-delay: 2\n", 2 * time.Second, true},
		{"User-agent: *\nCrawl-delay: 0.5\nDisallow: /x\n", 500 * time.Millisecond, true},
		{"User-agent: *\ncrawl-DELAY: 3\n", 3 * time.Second, true},
		{"User-agent: *\nCrawl-delay: soon\n", 0, false},
		{"User-agent: *\nCrawl-delay: -1\n", 0, false},
		{"User-agent: *\nCrawl-delay: 1e300\n", maxParsedDelay, true},
		{"User-agent: *\nCrawl-delay: 1\nCrawl-delay: 9\n", time.Second, true},
		{"User-agent: *\nCrawl-delay: 5\n\nUser-agent: linksrus\nCrawl-delay: 1\n", time.Second, true},
		{"User-agent: *\nCrawl-delay: 5\n\nUser-agent: linksrus\nDisallow: /x\n", 0, false},
		{"User-agent: other\nCrawl-delay: 5\n", 0, false},
		{"Crawl-delay: 5\n", 0, false},
	}
	for _, tt := range tests {
		got, ok := Parse([]byte(tt.body), "linksrus").CrawlDelay()
		if got != tt.want || ok != tt.ok {
			t.Errorf("CrawlDelay of %q = %v, %v; want %v, %v", tt.body, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRequestPath(t *testing.T) {
	for in, want := range map[string]string{
		"http://h":           "/",
		"http://h/a b?q=1":   "/a%20b?q=1",
		"http://h/a?":        "/a?",
		"http://h/%7Ex#frag": "/%7Ex",
	} {
		u, _ := url.Parse(in)
		if got := requestPath(u); got != want {
			t.Errorf("requestPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// Sitemap lines are kept whichever group they stand in, and do not end
// the group (the Disallow after one still applies).
func TestRulesSitemaps(t *testing.T) {
	body := "Sitemap: https://h/a.xml\nUser-agent: other\nSitemap: https://h/b.xml.gz \nDisallow: /\n" +
		"User-agent: *\nSitemap: https://h/a.xml\nsitemap:\nDisallow: /x\n"
	r := Parse([]byte(body), "linksrus")
	if got := strings.Join(r.Sitemaps(), " "); got != "https://h/a.xml https://h/b.xml.gz" {
		t.Errorf("Sitemaps() = %q", got)
	}
	if r.Allowed("/x") || !r.Allowed("/y") {
		t.Error("a Sitemap line changed the groups")
	}
	var many strings.Builder
	for i := range 2 * maxSitemaps {
		fmt.Fprintf(&many, "Sitemap: https://h/%d.xml\n", i)
	}
	if n := len(Parse([]byte(many.String()), "linksrus").Sitemaps()); n != maxSitemaps {
		t.Errorf("%d sitemaps kept, want %d", n, maxSitemaps)
	}
	if n := len(RulesFor(BasisUnavailable, nil, "linksrus").Sitemaps()); n != 0 {
		t.Errorf("%d sitemaps for an unavailable file", n)
	}
}

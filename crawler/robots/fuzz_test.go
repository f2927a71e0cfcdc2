package robots

import (
	"net/url"
	"strings"
	"testing"

	"github.com/jimsmart/grobotstxt"
)

// FuzzRules parses random bytes as robots.txt and matches a random path:
// it must never panic, and where no percent-escapes are involved the result
// must equal grobotstxt's own matcher, which re-parses the file per URL.
func FuzzRules(f *testing.F) {
	for _, c := range ruleCases {
		f.Add([]byte(c.body), c.path)
	}
	f.Add([]byte("User-agent: *\nCrawl-delay: 1.5\nAllow: /$\nDisallow: /*a*b$"), "/xayb")
	f.Fuzz(func(t *testing.T, body []byte, path string) {
		r := Parse(body, "linksrus")
		_ = r.Allowed(path) // arbitrary paths: must only not panic
		if _, ok := r.CrawlDelay(); ok && r.specificDelay < 0 && r.globalDelay < 0 {
			t.Fatal("CrawlDelay reported without a delay")
		}
		if !strings.HasPrefix(path, "/") || strings.Contains(string(body)+path, "%") {
			return
		}
		u, err := url.Parse("http://h" + path)
		if err != nil || u.Host != "h" {
			return
		}
		p := requestPath(u)
		if strings.Contains(p, "%") {
			return
		}
		got := r.Allowed(p)
		if want := grobotstxt.AgentAllowed(string(body), "linksrus", u.String()); got != want {
			t.Fatalf("Allowed(%q) = %v, grobotstxt says %v for %q", p, got, want, body)
		}
	})
}

// FuzzMatchPriority checks the allocation-free fast path against
// grobotstxt.Matches itself.
func FuzzMatchPriority(f *testing.F) {
	f.Add("/a/b", "/a")
	f.Add("/a", "/a$")
	f.Add("/a/b", "/a*b$")
	f.Add("/", "")
	f.Add("/x$", "/x$")
	f.Fuzz(func(t *testing.T, path, pattern string) {
		want := -1
		if grobotstxt.Matches(path, pattern) {
			want = len(pattern)
		}
		if got := matchPriority(path, pattern); got != want {
			t.Fatalf("matchPriority(%q, %q) = %d, grobotstxt says %d", path, pattern, got, want)
		}
	})
}

package robots

import (
	"net/url"
	"testing"

	"github.com/jimsmart/grobotstxt"
)

const benchRobots = "User-agent: *\nDisallow: /private/\nDisallow: /*.pdf$\nAllow: /private/public/\n" +
	"Disallow: /search?\nDisallow: /tmp\nCrawl-delay: 1\n\nUser-agent: otherbot\nDisallow: /\n"

// BenchmarkRulesAllowedURL is the hot path: a check against rules
// compiled once, as a crawl's robots.txt cache holds them.
// BenchmarkGrobotstxtPerCall is the baseline: calling the library
// directly, which re-parses the file for every URL.
func BenchmarkRulesAllowedURL(b *testing.B) {
	b.ReportAllocs()
	rules := Parse([]byte(benchRobots), "linksrus")
	u, _ := url.Parse("http://example.com/private/public/page?id=1")
	for b.Loop() {
		if !rules.AllowedURL(u) {
			b.Fatal("disallowed")
		}
	}
}

func BenchmarkGrobotstxtPerCall(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if !grobotstxt.AgentAllowed(benchRobots, "linksrus", "http://example.com/private/public/page?id=1") {
			b.Fatal("disallowed")
		}
	}
}

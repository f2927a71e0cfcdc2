package robots

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/jimsmart/grobotstxt"
)

const benchRobots = "User-agent: *\nDisallow: /private/\nDisallow: /*.pdf$\nAllow: /private/public/\n" +
	"Disallow: /search?\nDisallow: /tmp\nCrawl-delay: 1\n\nUser-agent: otherbot\nDisallow: /\n"

// BenchmarkAllowedCached is the hot path: a check against an origin whose
// rules are cached. BenchmarkGrobotstxtPerCall is the baseline: calling
// the library directly, which re-parses the file for every URL.
func BenchmarkAllowedCached(b *testing.B) {
	b.ReportAllocs()
	c, err := New(http.DefaultClient, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	// Pre-fill the cache without a server: a completed entry.
	e := &entry{key: "http://example.com", done: make(chan struct{}), rules: Parse([]byte(benchRobots), "linksrus"), basis: BasisRules}
	e.expires = c.opts.Now().Add(c.opts.TTL)
	close(e.done)
	e.elem = c.lru.PushFront(e)
	c.entries[e.key] = e
	u, _ := url.Parse("http://example.com/private/public/page?id=1")
	ctx := context.Background()
	for b.Loop() {
		if d, err := c.Allowed(ctx, u); err != nil || !d.Allowed {
			b.Fatal(d, err)
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

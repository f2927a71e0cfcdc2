package crawler

import (
	"context"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/crawler/urlnorm"
)

// Whatever the page, every stored link is in canonical form for the
// extractor's options (so de-duplication by string is de-duplication by
// URL), and appears once across Links and NoFollowLinks.
func FuzzExtractNormalizedLinks(f *testing.F) {
	f.Add("http://example.com/", `<a href="HTTP://EXAMPLE.com:80/a/./b/../%7e?utm_source=x&b=1&a=2#f">x</a><a href=/~?a=2&b=1 rel=nofollow>`, uint8(3))
	f.Add("https://bücher.example/dir/", `<base href="//xn--bcher-kva.example./"><a href="%e2%82%ac?&&">e</a>`, uint8(1))
	f.Add("http://[::FFFF:1.2.3.4]:8080/", `<a href="..%2f..%2F/x?q=%zz">`, uint8(2))
	f.Fuzz(func(t *testing.T, page, body string, flags uint8) {
		opts := urlnorm.Options{SortQuery: flags&1 != 0, StripTracking: flags&2 != 0}
		e := NewLinkExtractorWithOptions(privnet.New(), LinkOptions{Normalization: opts})
		p := NewPayload([16]byte{1}, page, time.Time{})
		defer p.MarkAsProcessed()
		p.Body = append(p.Body, body...)
		if _, err := e.Process(context.Background(), p); err != nil {
			return // an unparsable page URL is refused, not a panic
		}
		seen := map[string]bool{}
		for _, l := range append(append([]string(nil), p.Links...), p.NoFollowLinks...) {
			n, err := urlnorm.Normalize(l, opts)
			if err != nil || n != l {
				t.Fatalf("stored link %q is not canonical: %q, %v", l, n, err)
			}
			if seen[l] {
				t.Fatalf("link %q stored twice", l)
			}
			seen[l] = true
		}
	})
}

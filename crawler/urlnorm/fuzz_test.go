package urlnorm

import (
	"net/url"
	"testing"
)

// FuzzNormalize checks that Normalize never panics, that its output is a URL
// net/url accepts with an http(s) scheme and a host, and that normalising
// the output again changes nothing, with every combination of options.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"http://example.com/", "HTTP://User@Ex.COM:80/a/./b/../c?%7e=1&utm_x=2#f",
		"https://[::1]:443/%2e%2E/x", "http://bücher.example./?b&a", "http://a/%zz%",
		"http://a/b c/€?q=<>", "https://xn--bcher-kva.example/?a=1&&b=2&a=0",
	} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, raw string, flags uint8) {
		opts := Options{SortQuery: flags&1 != 0, StripTracking: flags&2 != 0}
		out, err := Normalize(raw, opts)
		if err != nil {
			return
		}
		again, err := Normalize(out, opts)
		if err != nil {
			t.Fatalf("Normalize(%q) = %q, which fails to normalise: %v", raw, out, err)
		}
		if again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", raw, out, again)
		}
		u, err := url.Parse(out)
		if err != nil {
			t.Fatalf("Normalize(%q) = %q, which net/url rejects: %v", raw, out, err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" || u.User != nil {
			t.Fatalf("Normalize(%q) = %q: bad parts %+v", raw, out, u)
		}
	})
}

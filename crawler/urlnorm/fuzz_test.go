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

// FuzzResolve checks that Resolve never panics and returns canonical URLs:
// normalising the result, or resolving it again, changes nothing; net/url
// reads it; and the base's spelling does not matter, only the URL it names.
func FuzzResolve(f *testing.F) {
	for _, c := range [][2]string{
		{"http://example.org/foo/bar", "12:30-meeting.html"},
		{"http://example.org/foo/bar?q", "http:?#f"},
		{"https://example.org/", "http:\\\\0x7f.1\\a?b\\c#d"},
		{"HTTP://Example.org:80/a/../b", "../sale-50%-off.html"},
		{"http://[::1]/", "//&a:foo(b]c@192.168.257:08/%2e%2E/x"},
		{"http://0x7f.1/a/", "\t :foo.com\n"},
		{"mailto:x", "https://０Ｘｃ０．０２５０．０１/"},
	} {
		f.Add(c[0], c[1], uint8(0))
		f.Add(c[0], c[1], uint8(3))
	}
	f.Fuzz(func(t *testing.T, base, ref string, flags uint8) {
		opts := Options{SortQuery: flags&1 != 0, StripTracking: flags&2 != 0}
		out, err := Resolve(base, ref, opts)
		if err != nil {
			return
		}
		if n, err := Normalize(out, opts); err != nil || n != out {
			t.Fatalf("Resolve(%q, %q) = %q, which normalises to %q, %v", base, ref, out, n, err)
		}
		if again, err := Resolve(base, out, opts); err != nil || again != out {
			t.Fatalf("Resolve(%q, %q) = %q, which resolves again to %q, %v", base, ref, out, again, err)
		}
		u, err := url.Parse(out)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.Fragment != "" {
			t.Fatalf("Resolve(%q, %q) = %q: net/url reads %+v, %v", base, ref, out, u, err)
		}
		if cb, err := Normalize(base, Options{}); err == nil {
			if other, err := Resolve(cb, ref, opts); err != nil || other != out {
				t.Fatalf("Resolve(%q, %q) = %q, but on the canonical base %q: %q, %v", base, ref, out, cb, other, err)
			}
		}
	})
}

package urlnorm

import (
	"errors"
	"strings"
	"testing"
)

// Resolve reads a link as browsers do (WHATWG URL standard), in the
// canonical form. The cases are from the standard and from the
// web-platform-tests URL data, for an http(s) page.
func TestResolve(t *testing.T) {
	const page = "http://example.org/foo/bar"
	for _, c := range []struct{ base, ref, want string }{
		{page, "c", "http://example.org/foo/c"},
		{page, "", page},
		{page, "#f", page},
		{"http://example.org/foo/bar?q", "", "http://example.org/foo/bar?q"},
		{"http://example.org/foo/bar?q", "#f", "http://example.org/foo/bar?q"},
		{"http://example.org/foo/bar?q", "http:", "http://example.org/foo/bar?q"},
		{"http://example.org/foo/bar?q", "?", page},
		{"http://example.org/foo/bar?q", "?r", "http://example.org/foo/bar?r"},
		{"http://example.org/foo/bar?q", "x", "http://example.org/foo/x"},
		{page, "/", "http://example.org/"},
		{page, "//x.example", "http://x.example/"},
		{page, "\\\\x.example\\p", "http://x.example/p"},
		{page, "/\\x.example/p", "http://x.example/p"},
		{page, "///x.example/p", "http://x.example/p"},
		{page, "http:x", "http://example.org/foo/x"},
		{page, "HTTP:x", "http://example.org/foo/x"},
		{page, "http:/x", "http://example.org/x"},
		{page, "http://x.example", "http://x.example/"},
		{page, "http:\\\\x.example", "http://x.example/"},
		{page, "https:x.example/p", "https://x.example/p"},
		{page, "https:/x.example/p", "https://x.example/p"},
		{"https://example.org/", "http:x.example", "http://x.example/"},
		{page, "12:30-meeting.html", "http://example.org/foo/12:30-meeting.html"},
		{page, ":foo.com/", "http://example.org/foo/:foo.com/"},
		{page, "::", "http://example.org/foo/::"},
		{page, "[61:24:74]:98", "http://example.org/foo/%5B61:24:74%5D:98"},
		{page, "http::@c:29", "http://example.org/foo/:@c:29"},
		{page, "/sale-50%-off.html", "http://example.org/sale-50%25-off.html"},
		{page, "x#50%", "http://example.org/foo/x"},
		{page, "http://&a:foo(b]c@d:2/", "http://d:2/"},
		{page, "http://192.168.257/", "http://192.168.1.1/"},
		{page, "//0x7f.1", "http://127.0.0.1/"},
		{page, "../../../../x", "http://example.org/x"},
		{page, "%2e%2e/x", "http://example.org/x"},
		{page, "a/./b/../c", "http://example.org/foo/a/c"},
		{page, " \t\n x\ty \x01", "http://example.org/foo/xy"},
		{page, "?a\\b'", "http://example.org/foo/bar?a%5Cb%27"},
		{"HTTP://Example.ORG:80/a/../foo/bar", "c", "http://example.org/foo/c"},
		{"http://[::1]:8080/a/b", "c", "http://[::1]:8080/a/c"},
		{"mailto:x@example.org", "http://example.com/", "http://example.com/"}, // an absolute ref needs no base
	} {
		got, err := Resolve(c.base, c.ref, Options{})
		if err != nil || got != c.want {
			t.Errorf("Resolve(%q, %q) = %q, %v; want %q", c.base, c.ref, got, err, c.want)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	const page = "http://example.org/foo/bar"
	for _, c := range []struct {
		base, ref string
		want      error
		inMessage string
	}{
		{page, "mailto:x@example.org", ErrUnsupportedScheme, ""},
		{page, "a:b", ErrUnsupportedScheme, ""},
		{page, "ftp://example.org/", ErrUnsupportedScheme, ""},
		{"https://example.org/", "http:", ErrMissingHost, ""},
		{page, "http://", ErrMissingHost, ""},
		{page, "//", ErrMissingHost, ""},
		{page, "http://a@/x", ErrMissingHost, ""},
		{page, "http://256.256.256.256/", ErrInvalidHost, ""},
		{page, "http://foo.09/", ErrInvalidHost, ""},
		{page, "http://[::1", ErrInvalidHost, ""},
		{page, "http://x:65536/", ErrInvalidPort, ""},
		{page, "http://x:8a/", ErrInvalidPort, ""},
		{"", "x", ErrNotAbsolute, "base"},
		{"/relative", "x", ErrNotAbsolute, "base"},
		{"mailto:x@example.org", "x", ErrUnsupportedScheme, "base"},
		{"http://exa mple.org/", "x", ErrInvalidHost, "base"},
	} {
		got, err := Resolve(c.base, c.ref, Options{})
		if !errors.Is(err, c.want) || !strings.Contains(errString(err), c.inMessage) {
			t.Errorf("Resolve(%q, %q) = %q, %v; want error %v", c.base, c.ref, got, err, c.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Resolving is normalising: options apply, the result is canonical, and
// resolving it again (or normalising it) changes nothing.
func TestResolveIsCanonical(t *testing.T) {
	opts := Options{SortQuery: true, StripTracking: true}
	got, err := Resolve("https://Example.com/a/b", "../c?z=1&utm_source=x&a=2#f", opts)
	if want := "https://example.com/c?a=2&z=1"; err != nil || got != want {
		t.Fatalf("Resolve = %q, %v; want %q", got, err, want)
	}
	if again, err := Resolve("http://other.example/", got, opts); err != nil || again != got {
		t.Errorf("resolving %q again gives %q, %v", got, again, err)
	}
	if n, err := Normalize(got, opts); err != nil || n != got {
		t.Errorf("Normalize(%q) = %q, %v", got, n, err)
	}
	allocs := testing.AllocsPerRun(100, func() { _, _ = Resolve("https://example.com/a/b", "https://example.com/c", Options{}) })
	if allocs != 0 {
		t.Errorf("canonical absolute ref allocated %v times, want 0", allocs)
	}
}

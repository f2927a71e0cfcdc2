package urlnorm

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		// Case and the trivially equivalent spellings.
		{"HTTP://Example.COM/Path", "http://example.com/Path"},
		{"http://example.com", "http://example.com/"},
		{"http://example.com?", "http://example.com/"},
		{"http://example.com/?", "http://example.com/"},
		{"http://example.com/a?#frag", "http://example.com/a"},
		{"http://example.com/a#frag", "http://example.com/a"},
		{"http://user:pass@example.com/", "http://example.com/"},
		{"http://a@b@example.com/", "http://example.com/"},
		{"  http://example.com/x \n", "http://example.com/x"},
		{"http://example.com./", "http://example.com/"},
		{"http://example.com..:8080/", "http://example.com:8080/"},
		// Ports.
		{"http://example.com:80/", "http://example.com/"},
		{"https://example.com:443/", "https://example.com/"},
		{"http://example.com:443/", "http://example.com:443/"},
		{"https://example.com:80/", "https://example.com:80/"},
		{"http://example.com:/", "http://example.com/"},
		{"http://example.com:0080/", "http://example.com/"},
		{"http://example.com:08080/", "http://example.com:8080/"},
		// Hosts.
		{"http://Bücher.example/", "http://xn--bcher-kva.example/"},
		{"http://BÜCHER.example/", "http://xn--bcher-kva.example/"},
		{"http://xn--bcher-kva.example/", "http://xn--bcher-kva.example/"},
		{"http://b%C3%BCcher.example/", "http://xn--bcher-kva.example/"},
		{"http://münchen.de。/", "http://xn--mnchen-3ya.de/"},
		{"http://under_score.example.com/", "http://under_score.example.com/"},
		{"http://r3---sn-abc.example.com/", "http://r3---sn-abc.example.com/"},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080/"},
		{"http://[2001:DB8:0:0::1]:80/", "http://[2001:db8::1]/"},
		{"http://[::FFFF:1.2.3.4]/", "http://[::ffff:1.2.3.4]/"},
		// Percent-encoding: unreserved decoded, the rest kept and upper-cased.
		{"http://example.com/%7euser/%41%62%2d%2E%5F", "http://example.com/~user/Ab-._"},
		{"http://example.com/a%2fb%3f%23", "http://example.com/a%2Fb%3F%23"},
		{"http://example.com/a%2Fb", "http://example.com/a%2Fb"},
		{"http://example.com/?q=%e2%82%ac&x=a%26b", "http://example.com/?q=%E2%82%AC&x=a%26b"},
		{"http://example.com/a b", "http://example.com/a%20b"},
		{"http://example.com/€", "http://example.com/%E2%82%AC"},
		{"http://example.com/100%", "http://example.com/100%25"},
		{"http://example.com/%zz%4", "http://example.com/%25zz%254"},
		{"http://example.com/a?b c=d|e", "http://example.com/a?b%20c=d%7Ce"},
		{"http://example.com/a?x=1+2&y=/?:@", "http://example.com/a?x=1+2&y=/?:@"},
		{"http://example.com/\"<>^`{|}", "http://example.com/%22%3C%3E%5E%60%7B%7C%7D"},
		// Read as browsers read it (WHATWG URL standard).
		{"http://example.com/a\\b?c\\d", "http://example.com/a/b?c%5Cd"},
		{"http://example.com/?it's", "http://example.com/?it%27s"},
		{"http://example.com/it's", "http://example.com/it's"},
		{"http:/example.com/a", "http://example.com/a"},
		{"http:example.com", "http://example.com/"},
		{"https:\\\\example.com\\a", "https://example.com/a"},
		{"http:///example.com/", "http://example.com/"},
		{"ht\ttp://exa\nmple.com/a\r/b", "http://example.com/a/b"},
		{"http://a:b@c:d@example.com/", "http://example.com/"},
		{"http://&a:foo(b]c@example.com:2/", "http://example.com:2/"},
		// Dot segments (RFC 3986 5.4 examples, as absolute paths).
		{"http://a/b/c/./../../g", "http://a/g"},
		{"http://a/b/c/../..", "http://a/"},
		{"http://a/b/c/..", "http://a/b/"},
		{"http://a/b/c/.", "http://a/b/c/"},
		{"http://a/b/./c/", "http://a/b/c/"},
		{"http://a/../../g", "http://a/g"},
		{"http://a/g.", "http://a/g."},
		{"http://a/.g/..g/g..", "http://a/.g/..g/g.."},
		{"http://a/%2e%2E/b/%2e/c", "http://a/b/c"},
		{"http://a/b/..?q=1", "http://a/?q=1"},
		// Unsafe normalisations are not applied.
		{"http://www.example.com/index.html", "http://www.example.com/index.html"},
		{"http://example.com//a//b/", "http://example.com//a//b/"},
		{"http://example.com/a/", "http://example.com/a/"},
		{"http://example.com/?b=2&a=1&utm_source=x", "http://example.com/?b=2&a=1&utm_source=x"},
		{"http://example.com/?a&&b", "http://example.com/?a&&b"},
	}
	for _, tt := range tests {
		got, err := Normalize(tt.in, Options{})
		if err != nil {
			t.Errorf("Normalize(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if _, err := url.Parse(got); err != nil {
			t.Errorf("Normalize(%q) = %q, which net/url rejects: %v", tt.in, got, err)
		}
	}
}

func TestNormalizeOptions(t *testing.T) {
	tests := []struct {
		in   string
		opts Options
		want string
	}{
		{"http://e.com/?b=2&a=1&c", Options{SortQuery: true}, "http://e.com/?a=1&b=2&c"},
		{"http://e.com/?a=2&b&a=1", Options{SortQuery: true}, "http://e.com/?a=2&a=1&b"},
		{"http://e.com/?b=1&&a=2&", Options{SortQuery: true}, "http://e.com/?a=2&b=1"},
		{"http://e.com/?a=1&utm_source=x&UTM_Medium=y&gclid=1&fbclid=2&b=2", Options{StripTracking: true}, "http://e.com/?a=1&b=2"},
		{"http://e.com/?utm%5Fsource=x&utm=1&utmx=2", Options{StripTracking: true}, "http://e.com/?utm=1&utmx=2"},
		{"http://e.com/p?utm_source=x&gclid", Options{StripTracking: true}, "http://e.com/p"},
		{"http://e.com/?z=1&utm_id=2&y=3", Options{SortQuery: true, StripTracking: true}, "http://e.com/?y=3&z=1"},
		{"http://e.com/?gclid=a=b", Options{StripTracking: true}, "http://e.com/"},
	}
	for _, tt := range tests {
		got, err := Normalize(tt.in, tt.opts)
		if err != nil {
			t.Errorf("Normalize(%q, %+v): %v", tt.in, tt.opts, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Normalize(%q, %+v) = %q, want %q", tt.in, tt.opts, got, tt.want)
		}
	}
}

// URLs around the size of the on-stack buffer, without a path or with
// one, come out whole (found by fuzzing: an empty path at the buffer's end
// panicked).
func TestNormalizeAroundBufferSize(t *testing.T) {
	for n := stackBuf - 16; n <= stackBuf+16; n++ {
		host := strings.Repeat("a", n-len("http://"))
		for _, c := range []struct{ in, want string }{
			{"http://" + host, "http://" + host + "/"},
			{"http:" + host + "?q", "http://" + host + "/?q"},
			{"http://" + host + "/.", "http://" + host + "/"},
			{"http://x/" + host[1:], "http://x/" + host[1:]},
		} {
			if got, err := Normalize(c.in, Options{}); err != nil || got != c.want {
				t.Fatalf("Normalize of %d bytes = %q, %v; want %q", len(c.in), got, err, c.want)
			}
		}
	}
}

func TestNormalizeLongQueryManyParams(t *testing.T) {
	// More parameters and bytes than the on-stack buffers hold.
	var sb strings.Builder
	sb.WriteString("http://e.com/" + strings.Repeat("x", 600) + "?")
	for i := 99; i >= 0; i-- {
		sb.WriteString("p")
		sb.WriteByte(byte('a' + i%26))
		sb.WriteString("=1&utm_x=2&")
	}
	got, err := Normalize(sb.String(), Options{SortQuery: true, StripTracking: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "utm_") || !strings.Contains(got, "?pa=1&pa=1") {
		t.Errorf("long query not rewritten: %q", got[:700])
	}
	if again, _ := Normalize(got, Options{SortQuery: true, StripTracking: true}); again != got {
		t.Errorf("not idempotent on long URL")
	}
}

func TestNormalizeErrors(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"", ErrNotAbsolute},
		{"/relative/path", ErrNotAbsolute},
		{"example.com/x", ErrNotAbsolute},
		{"1http://x/", ErrNotAbsolute},
		{"mailto:a@example.com", ErrUnsupportedScheme},
		{"javascript:alert(1)", ErrUnsupportedScheme},
		{"ftp://example.com/", ErrUnsupportedScheme},
		{"http:", ErrMissingHost},
		{"http://", ErrMissingHost},
		{"http:///", ErrMissingHost},
		{"http://?x", ErrMissingHost},
		{"http://user@/x", ErrMissingHost},
		{"http://:80/", ErrMissingHost},
		{"http://.../", ErrInvalidHost},
		{"http://a..b/", ErrInvalidHost},
		{"http://.a/", ErrInvalidHost},
		{"http://exa mple.com/", ErrInvalidHost},
		{"http://exa<mple.com/", ErrInvalidHost},
		{"http://[::1/", ErrInvalidHost},
		{"http://[::1]x/", ErrInvalidHost},
		{"http://[1.2.3.4]/", ErrInvalidHost},
		{"http://[fe80::1%25eth0]/", ErrInvalidHost},
		{"http://ex%zzample.com/", ErrInvalidHost},
		{"http://%ff.com/", ErrInvalidHost},
		{"http://example.com:http/", ErrInvalidPort},
		{"http://example.com:65536/", ErrInvalidPort},
		{"http://example.com:0/", ErrInvalidPort},
		{"http://example.com:99999999999999999999/", ErrInvalidPort},
	}
	for _, tt := range tests {
		got, err := Normalize(tt.in, Options{})
		if !errors.Is(err, tt.want) {
			t.Errorf("Normalize(%q) = %q, %v; want error %v", tt.in, got, err, tt.want)
		}
	}
}

func TestNormalizeURL(t *testing.T) {
	base, _ := url.Parse("http://Example.com/a/b/c")
	ref, _ := url.Parse("../d/./e?x=%7e#top")
	got, err := NormalizeURL(base.ResolveReference(ref), Options{})
	if err != nil || got != "http://example.com/a/d/e?x=~" {
		t.Errorf("NormalizeURL = %q, %v", got, err)
	}
	if _, err := NormalizeURL(nil, Options{}); !errors.Is(err, ErrNotAbsolute) {
		t.Errorf("NormalizeURL(nil) error = %v, want ErrNotAbsolute", err)
	}
}

func TestNormalizeReturnsInputWhenCanonical(t *testing.T) {
	in := "https://example.com/a/b?c=d"
	allocs := testing.AllocsPerRun(100, func() {
		if got, _ := Normalize(in, Options{}); got != in {
			t.Fatalf("got %q", got)
		}
	})
	if allocs != 0 {
		t.Errorf("canonical input allocated %v times, want 0", allocs)
	}
	allocs = testing.AllocsPerRun(100, func() { _, _ = Normalize("HTTPS://Example.com:443/a/./b?c=%7e#f", Options{SortQuery: true}) })
	if allocs != 1 {
		t.Errorf("ASCII input allocated %v times, want 1 (the result)", allocs)
	}
}

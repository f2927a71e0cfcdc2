package urlnorm

import (
	"errors"
	"testing"
)

// A host that ends in a number is an IPv4 address, in any spelling the
// WHATWG URL standard's IPv4 parser reads, and written as dotted decimal;
// if it is no valid address, the URL is invalid, as it is for browsers.
func TestNormalizeIPv4Hosts(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://192.168.257", "http://192.168.1.1/"},
		{"http://192.168.257.", "http://192.168.1.1/"},
		{"http://999999999", "http://59.154.201.255/"},
		{"http://2130706433/a", "http://127.0.0.1/a"},
		{"http://0x7f.1:8080/", "http://127.0.0.1:8080/"},
		{"http://0X7F.1/", "http://127.0.0.1/"},
		{"http://0177.0.0.01/", "http://127.0.0.1/"},
		{"http://127.1/", "http://127.0.0.1/"},
		{"http://127.0.1/", "http://127.0.0.1/"},
		{"http://256", "http://0.0.1.0/"},
		{"http://4294967295", "http://255.255.255.255/"},
		{"http://0xffffffff", "http://255.255.255.255/"},
		{"http://0xFFFFFFFF", "http://255.255.255.255/"},
		{"http://192.0x00A80001", "http://192.168.0.1/"},
		{"https://0x.0x.0", "https://0.0.0.0/"},
		{"https://0x.0x.0x.0x", "https://0.0.0.0/"},
		{"https://00.00.00.00", "https://0.0.0.0/"},
		{"https://0000000000000000000000000000000000000000177.0.0.1", "https://127.0.0.1/"},
		{"http://0x0000000000000000000000000000000000000000000007f.1/", "http://127.0.0.1/"},
		{"http://%30%78%63%30%2e%30%32%35%30.01", "http://192.168.0.1/"},
		{"http://%30%78%63%30%2e%30%32%35%30.01%2e", "http://192.168.0.1/"},
		{"http://０Ｘｃ０．０２５０．０１", "http://192.168.0.1/"},
		{"http://1.2.3.4/", "http://1.2.3.4/"},
		{"http://1.2.3.4../", "http://1.2.3.4/"},
		// Not numbers: names.
		{"http://1.2.3.a/", "http://1.2.3.a/"},
		{"http://0x7f.example/", "http://0x7f.example/"},
		{"http://a.0xg/", "http://a.0xg/"},
		{"http://example.123abc/", "http://example.123abc/"},
		{"http://1e3/", "http://1e3/"},
		{"http://0xg/", "http://0xg/"},
	} {
		got, err := Normalize(c.in, Options{})
		if err != nil || got != c.want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{
		"http://256.256.256.256", "http://256.256.256.256.256", "http://192.168.0.257",
		"http://10000000000", "http://4294967296", "http://0xffffffff1", "http://0x100000000",
		"http://18446744073709551616", "http://18446744075840258049", "http://1.2.3.4.5",
		"http://1.2.3.4.5.", "http://foo.09", "http://foo.0x4", "http://foo.0x", "http://1.2.3.09",
		"http://1..2", "http://09", "http://0x100.1", "http://1.0x1000000", "http://1.2.0x10000",
		"http://1.2.3.0x100", "http://a b.1", "http://%66oo.09",
	} {
		if got, err := Normalize(in, Options{}); !errors.Is(err, ErrInvalidHost) {
			t.Errorf("Normalize(%q) = %q, %v; want ErrInvalidHost", in, got, err)
		}
	}
}

func TestNormalizeHost(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Example.COM.", "example.com"},
		{"example.com", "example.com"},
		{"Bücher.example", "xn--bcher-kva.example"},
		{"0x7f.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"%30x7f.1", "127.0.0.1"},
		{"[::FFFF:7f00:1]", "[::ffff:127.0.0.1]"},
		{"under_score.example", "under_score.example"},
	} {
		got, err := NormalizeHost(c.in)
		if err != nil || got != c.want {
			t.Errorf("NormalizeHost(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", ".", "256.256.256.256", "foo.09", "a b", "a:80", "[::1", "::1", "ex%zz.com", "a..b"} {
		if got, err := NormalizeHost(in); !errors.Is(err, ErrInvalidHost) {
			t.Errorf("NormalizeHost(%q) = %q, %v; want ErrInvalidHost", in, got, err)
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { _, _ = NormalizeHost("example.com") }); allocs != 0 {
		t.Errorf("canonical host allocated %v times, want 0", allocs)
	}
}

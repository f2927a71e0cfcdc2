package warc_test

import (
	"strings"
	"testing"

	"github.com/linksrus/linksrus/archive/warc"
)

// Keys worked out by hand from the rules of the surt package's default
// canonicalisation (Google's canonicaliser, then the Internet Archive's,
// then the host reversed), the keys pywb looks URLs up by.
func TestSURT(t *testing.T) {
	for _, c := range []struct{ url, want, why string }{
		// Hosts: lowered, "www." and the like dropped, labels reversed.
		{"http://www.Example.com/A?b=1&a=2", "com,example)/a?a=2&b=1", "host, path and query lowered, parameters sorted"},
		{"https://example.com", "com,example)/", "no path is /"},
		{"http://www2.example.com/", "com,example)/", "www followed by digits is dropped"},
		{"http://wwwx.example.com/", "com,example,wwwx)/", "only www[0-9]*. is dropped"},
		{"http://www.example.com./", "com,example)/", "trailing dot"},
		{"http://.example..com./", "com,example)/", ".. made . and outer dots trimmed"},
		{"http://ex%61mple.COM/", "com,example)/", "host percent-decoded"},
		{"http://bücher.example/", "example,xn--bcher-kva)/", "IDNA"},
		// IPv4: reversed like a name; numeric forms made dotted first.
		{"http://127.0.0.1:18083/about.html", "1,0,0,127:18083)/about.html", "issue #29: warcio's key"},
		{"http://10.1.2.3/", "3,2,1,10)/", "IPv4 reversed"},
		{"http://2130706433/", "1,0,0,127)/", "a 32-bit number"},
		{"http://4294967297/", "1,0,0,0)/", "digits alone, modulo 2^32"},
		{"http://127.1/", "1,0,0,127)/", "inet_aton: the last number fills three bytes"},
		{"http://0177.0.0.1/", "1,0,0,127)/", "inet_aton: octal"},
		{"http://1.2.3.999/", "999,3,2,1)/", "not an address for inet_aton: a name"},
		{"http://0x7f.0.0.1/", "1,0,0,0x7f)/", "hex is not tried: a name"},
		// IPv6: the brackets go, no dot to reverse, the port follows.
		{"http://[::1]:8080/x", "::1:8080)/x", "IPv6 with a port"},
		{"http://[2001:DB8::A]/", "2001:db8::a)/", "IPv6 lowered, not rewritten"},
		{"https://[::1]:443/", "::1)/", "IPv6 with the default port"},
		{"http://[::ffff:192.0.2.1]/", "1,2,0,::ffff:192)/", "dots of an embedded IPv4 reversed"},
		// Ports and user information.
		{"https://sub.example.org:443/", "org,example,sub)/", "https default port"},
		{"http://example.com:80/", "com,example)/", "http default port"},
		{"http://example.com:0080/x", "com,example)/x", "port read as a number"},
		{"http://example.com:443/", "com,example:443)/", "443 is not http's"},
		{"https://example.com:80/", "com,example:80)/", "80 is not https's"},
		{"http://EXAMPLE.com:8080", "com,example:8080)/", "port kept"},
		{"http://user:Pass@www.example.com:8080/", "com,example:8080)/", "user information dropped"},
		// Paths.
		{"http://example.com/dir/", "com,example)/dir", "trailing slash dropped"},
		{"http://example.com/a/./b/../c//d", "com,example)/a/c/d", "dot and empty segments resolved"},
		{"http://example.com/../a", "com,example)/../a", ".. above the root kept"},
		{"http://example.com/%7Euser/A%20B", "com,example)/~user/a%20b", "decoded, escaped again, lowered"},
		{"http://example.com/caf%C3%A9", "com,example)/caf%c3%a9", "bytes beyond ASCII escaped, lowered"},
		{"http://example.com/a#b?c", "com,example)/a", "fragment dropped"},
		{"http://example.com/shop/(S(0123456789abcdefghijklmn))/Default.aspx?x=1", "com,example)/shop/default.aspx?x=1", "ASP.NET path session"},
		// Queries.
		{"http://example.com/?B=2&a=1&a", "com,example)/?a&a=1&b=2", "lowered before sorting; a name alone first"},
		{"http://example.com/?a-b=2&a=1", "com,example)/?a=1&a-b=2", "sorted by name, then value"},
		{"http://example.com/x?", "com,example)/x", "empty query dropped"},
		{"http://example.com/x?q=%41%2541", "com,example)/x?q=aa", "decoded repeatedly"},
		{"http://example.com/x?q=a b", "com,example)/x?q=a%20b", "space escaped"},
		{"http://example.com/a?x=%23", "com,example)/a?x=%23", "# stays escaped"},
		{"http://example.com/p?jsessionid=0123456789ABCDEF0123456789ABCDEF&x=1", "com,example)/p?x=1", "jsessionid dropped"},
		{"http://example.com/p?x=1&PHPSESSID=0123456789abcdef0123456789abcdef", "com,example)/p?&x=1", "phpsessid dropped, its & kept"},
		// What surt does with URLs that are not quite http URLs.
		{"example.com/a", "com,example)/a", "http assumed"},
		{"http://https://example.com/", "com,example)/", "repeated scheme"},
		{"http:///www.example.com/a", "com,example)/a", "host in the path"},
		{"mailto:someone@example.com", "mailto:someone@example.com", "no host: the scheme stays"},
		{"", "-", "empty"},
		{"filedesc://x.arc", "filedesc://x.arc", "an ARC header"},
		{"http://Example.com:x/", "http://example.com:x/", "a port surt rejects: lowered only"},
		{"::not a url", "::not a url", "no host, a port surt rejects"},
	} {
		if got := warc.SURT(c.url); got != c.want {
			t.Errorf("SURT(%q) = %q, want %q (%s)", c.url, got, c.want, c.why)
		}
	}
}

// Whatever the input, a key is printable ASCII without spaces, but where
// SURT keeps the input (an ARC header) or only lowers it (surt rejects it).
func FuzzSURT(f *testing.F) {
	for _, s := range []string{"http://www.Example.com/A?b=1&a=2", "http://[::1]:8080/x", "http://127.1/%zz", "bücher.example/ä?ö#ü", "http:///", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		key := warc.SURT(raw)
		if strings.HasPrefix(raw, "filedesc") || key == lowerASCII(raw) {
			return
		}
		for i := 0; i < len(key); i++ {
			if key[i] <= ' ' || key[i] >= 0x7f || key[i] == '#' {
				t.Fatalf("SURT(%q) = %q: byte %#x", raw, key, key[i])
			}
		}
	})
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

package urlnorm

import (
	"fmt"
	"net/netip"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// idnaProfile maps internationalised hosts the way browsers look them up
// (UTS #46 non-transitional processing with the Bidi rule) but, unlike
// idna.Lookup, accepts '_' and "--" in the third and fourth positions,
// which real hosts use (e.g. "r3---sn-abc.example.com").
var idnaProfile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
)

// appendAuthority appends the normalised host and non-default port of
// authority, dropping any user information: what precedes the last '@'
// (WHATWG URL standard, authority state).
func appendAuthority(b []byte, authority, defaultPort string) ([]byte, error) {
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	// The port starts at the first ':' outside brackets (host state).
	host, port := authority, ""
	if strings.IndexByte(authority, '[') < 0 {
		if i := strings.IndexByte(authority, ':'); i >= 0 {
			host, port = authority[:i], authority[i:]
		}
	} else {
		inBrackets := false
		for i := 0; i < len(authority) && port == ""; i++ {
			switch authority[i] {
			case '[':
				inBrackets = true
			case ']':
				inBrackets = false
			case ':':
				if !inBrackets {
					host, port = authority[:i], authority[i:]
				}
			}
		}
	}
	if host == "" {
		return b, ErrMissingHost
	}
	var err error
	if b, err = appendHost(b, host); err != nil {
		return b, err
	}
	return appendPort(b, port, defaultPort)
}

// NormalizeHost returns the canonical form of a URL's host (without port),
// as Normalize writes it: lower-case ASCII for domain names, punycode for
// internationalised ones, dotted decimal for IPv4 addresses in any of the
// spellings browsers read ("0x7f.1", "2130706433", "127.1"), RFC 5952 text
// in brackets for IPv6 literals (given in brackets too). Percent-encoding
// is decoded and a trailing dot dropped first. It returns an error wrapping
// ErrInvalidHost for a host browsers refuse (a name that ends in a number
// but is no IPv4 address, such as "256.256.256.256" or "foo.09") or no
// resolver looks up (characters other than letters, digits, '-', '_').
func NormalizeHost(host string) (string, error) {
	var stack [64]byte
	b, err := appendHost(stack[:0], host)
	if err != nil {
		return "", fmt.Errorf("normalise host %q: %w", clip(host), err)
	}
	if string(b) == host {
		return host, nil
	}
	return string(b), nil
}

// appendHost appends the canonical form of host: lower-case ASCII for domain
// names, dotted decimal for IPv4 addresses, punycode for IDNs, RFC 5952
// text for IPv6. It follows the WHATWG host parser for http(s) URLs, but
// refuses the host characters no DNS name can hold, and empty labels.
func appendHost(b []byte, host string) ([]byte, error) {
	if strings.HasPrefix(host, "[") {
		if !strings.HasSuffix(host, "]") {
			return b, fmt.Errorf("%w: unterminated IPv6 literal %q", ErrInvalidHost, clip(host))
		}
		inner := host[1 : len(host)-1]
		if strings.IndexByte(inner, '%') >= 0 {
			return b, fmt.Errorf("%w: IPv6 zone identifiers are not crawlable", ErrInvalidHost)
		}
		addr, err := netip.ParseAddr(inner)
		if err != nil || !addr.Is6() {
			return b, fmt.Errorf("%w: bad IPv6 literal %q", ErrInvalidHost, clip(inner))
		}
		b = append(b, '[')
		b = addr.AppendTo(b)
		return append(b, ']'), nil
	}
	if needsIDNA(host) {
		ascii, err := toASCII(host)
		if err != nil {
			return b, err
		}
		host = ascii
	}
	host = strings.TrimRight(host, ".")
	if host == "" {
		return b, fmt.Errorf("%w: empty host", ErrInvalidHost)
	}
	if endsInNumber(host) {
		addr, err := parseIPv4(host)
		if err != nil {
			return b, err
		}
		return addr.AppendTo(b), nil
	}
	start := len(b)
	for i := 0; i < len(host); i++ {
		c := host[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
		case c == '.':
			if i == 0 || host[i-1] == '.' {
				return b[:start], fmt.Errorf("%w: empty label in %q", ErrInvalidHost, clip(host))
			}
		default:
			return b[:start], fmt.Errorf("%w: character %q in %q", ErrInvalidHost, c, clip(host))
		}
		b = append(b, c)
	}
	return b, nil
}

// needsIDNA reports whether host has non-ASCII or percent-encoded bytes,
// the only cases the (comparatively slow) IDNA mapping is needed for.
func needsIDNA(host string) bool {
	for i := 0; i < len(host); i++ {
		if host[i] >= utf8.RuneSelf || host[i] == '%' {
			return true
		}
	}
	return false
}

// toASCII decodes percent-encoding in host (which Go's net/url accepts for
// IDNs) and maps the result to its ASCII form.
func toASCII(host string) (string, error) {
	if strings.IndexByte(host, '%') >= 0 {
		dec := make([]byte, 0, len(host))
		for i := 0; i < len(host); i++ {
			if host[i] != '%' {
				dec = append(dec, host[i])
				continue
			}
			if i+2 >= len(host) || !isHex(host[i+1]) || !isHex(host[i+2]) {
				return "", fmt.Errorf("%w: bad percent-encoding in %q", ErrInvalidHost, clip(host))
			}
			dec = append(dec, unhex(host[i+1])<<4|unhex(host[i+2]))
			i += 2
		}
		host = string(dec)
	}
	if !utf8.ValidString(host) {
		return "", fmt.Errorf("%w: host is not valid UTF-8", ErrInvalidHost)
	}
	ascii, err := idnaProfile.ToASCII(host)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidHost, err)
	}
	return ascii, nil
}

// appendPort appends ":port" unless port (including its colon) is empty or
// the scheme's default; leading zeros are dropped.
func appendPort(b []byte, port, defaultPort string) ([]byte, error) {
	if len(port) <= 1 { // no port, or "host:" which RFC 3986 6.2.3 treats as none
		return b, nil
	}
	digits := port[1:]
	n := 0
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return b, fmt.Errorf("%w %q", ErrInvalidPort, clip(digits))
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			return b, fmt.Errorf("%w %q", ErrInvalidPort, clip(digits))
		}
	}
	if n == 0 {
		return b, fmt.Errorf("%w %q", ErrInvalidPort, clip(digits))
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == defaultPort {
		return b, nil
	}
	b = append(b, ':')
	return append(b, digits...), nil
}

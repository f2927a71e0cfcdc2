package terms

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Site is a site: restriction: pages on Host or one of its subdomains, on
// Port. A host on another port is another site, as the crawl's scope and
// politeness treat it.
type Site struct {
	// Host is lower-cased, without a trailing dot; an IPv6 address is in
	// brackets ("[::1]").
	Host string
	// Port is a decimal port without leading zeros, or "" for the default
	// port of the page's scheme (80 for http, 443 for https).
	Port string
}

// String writes the site as a site: operand reads it back.
func (s Site) String() string {
	if s.Port == "" {
		return s.Host
	}
	return s.Host + ":" + s.Port
}

// ParseSite reads the operand of site: ("example.com", "Example.COM.",
// "example.com:8080", "[::1]:8080", "https://example.com:8080/docs"); ok
// is false for one that names no host, or a port that is not one. A URL's
// scheme tells its default port, which then means no port; otherwise the
// scheme is ignored: site: restricts hosts and ports, not schemes.
func ParseSite(v string) (s Site, ok bool) {
	var host, port string
	if strings.Contains(v, "://") {
		u, err := url.Parse(v)
		if err != nil {
			return Site{}, false
		}
		host, port = u.Hostname(), u.Port()
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		if canonicalPort(port) == defaultPort(u.Scheme) {
			port = ""
		}
	} else {
		if i := strings.IndexAny(v, "/?#"); i >= 0 {
			v = v[:i]
		}
		rest := v
		if strings.HasPrefix(v, "[") {
			end := strings.IndexByte(v, ']')
			if end < 0 {
				return Site{}, false
			}
			host, rest = v[:end+1], v[end+1:]
		} else {
			host, rest, _ = strings.Cut(v, ":")
			if rest != "" {
				rest = ":" + rest
			}
		}
		if rest != "" {
			if rest[0] != ':' {
				return Site{}, false
			}
			port = rest[1:]
		}
	}
	if port != "" {
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil || n == 0 {
			return Site{}, false
		}
		port = strconv.FormatUint(n, 10)
	}
	host = strings.TrimRight(strings.ToLower(host), ".") // "example.com." is example.com
	if strings.HasPrefix(host, "[") {
		a, err := netip.ParseAddr(strings.TrimSuffix(host[1:], "]"))
		if err != nil || !a.Is6() || a.Zone() != "" || !strings.HasSuffix(host, "]") {
			return Site{}, false
		}
		return Site{Host: host, Port: port}, true
	}
	for _, r := range host {
		if !(r == '.' || r == '-' || IsTermRune(r)) {
			return Site{}, false
		}
	}
	if strings.Trim(host, ".-") == "" {
		return Site{}, false
	}
	return Site{Host: host, Port: port}, true
}

// Place is where a page is, as site: compares it: its URL's host and port.
type Place struct {
	// Host is as in Site.
	Host string
	// Port is the port the URL names, else its scheme's default ("" for
	// another scheme); Default reports that it is the scheme's default
	// (or that the URL names none).
	Port    string
	Default bool
}

// PlaceOf returns where the page at rawURL is, as package url parses the
// URL; ok is false for a URL without a host.
func PlaceOf(rawURL string) (p Place, ok bool) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return Place{}, false
	}
	host := strings.TrimRight(strings.ToLower(u.Hostname()), ".")
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if host == "" {
		return Place{}, false
	}
	def := defaultPort(u.Scheme)
	port := canonicalPort(u.Port())
	if port == "" {
		return Place{Host: host, Port: def, Default: true}, true
	}
	return Place{Host: host, Port: port, Default: port == def}, true
}

// Site returns the site a page at p is on: its host, with its port unless
// that is the default.
func (p Place) Site() Site {
	if p.Default {
		return Site{Host: p.Host}
	}
	return Site{Host: p.Host, Port: p.Port}
}

// Holds reports whether a page at p is on s: on s's host or a subdomain
// of it (an IP address has none), on s's port or, for a site without one,
// on the default port of its scheme.
func (s Site) Holds(p Place) bool {
	if p.Host != s.Host && (isAddress(s.Host) || !strings.HasSuffix(p.Host, "."+s.Host)) {
		return false
	}
	if s.Port == "" {
		return p.Default
	}
	return p.Port == s.Port
}

// isAddress reports whether a site's host is an IP address: IPv6 in
// brackets or IPv4 (digits and dots), which has no subdomains.
func isAddress(host string) bool {
	return strings.HasPrefix(host, "[") || strings.Trim(host, "0123456789.") == ""
}

// defaultPort is the port a URL of scheme (lower-cased, as package url
// leaves it) names without one; "" for schemes other than http(s).
func defaultPort(scheme string) string {
	switch scheme {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// canonicalPort writes a port of digits without leading zeros ("0" stays).
func canonicalPort(port string) string {
	if p := strings.TrimLeft(port, "0"); p != "" || port == "" {
		return p
	}
	return "0"
}

package privnet

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/linksrus/linksrus/crawler/urlnorm"
)

var (
	// ErrPrivateAddress is returned (wrapped) when a host or a dialled
	// address is in a private or special-purpose network.
	ErrPrivateAddress = errors.New("privnet: private or special-purpose address")

	// ErrInvalidHost is returned (wrapped) for an empty or malformed host.
	ErrInvalidHost = errors.New("privnet: invalid host")
)

// Detector tells private addresses from public ones. The zero value has an
// empty allow-list and is ready to use; a Detector is safe for concurrent use
// and must not be modified after first use.
type Detector struct {
	allow []netip.Prefix
	deny  []netip.Prefix
}

// New returns a Detector that treats the addresses in allow as public even
// when they are in a special-purpose range, so that an intranet (or, in a
// test, 127.0.0.1/32) can be crawled on purpose.
func New(allow ...netip.Prefix) *Detector {
	d := &Detector{allow: make([]netip.Prefix, 0, len(allow))}
	for _, p := range allow {
		d.allow = append(d.allow, p.Masked())
	}
	return d
}

// WithDenied returns a copy of d that also treats the addresses in deny as
// private: ranges that are public on the internet but must never be
// crawled, such as a company's own. A denied address stays private even if
// the allow-list names it.
func (d *Detector) WithDenied(deny ...netip.Prefix) *Detector {
	c := &Detector{allow: d.allow, deny: append([]netip.Prefix(nil), d.deny...)}
	for _, p := range deny {
		c.deny = append(c.deny, p.Masked())
	}
	return c
}

// ParseAllowList parses CIDR prefixes ("10.0.0.0/8", "::1/128") or single
// addresses ("127.0.0.1", taken as a /32 or /128), as given on a command line.
func ParseAllowList(cidrs ...string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(cidrs))
	for _, c := range cidrs {
		c = strings.TrimSpace(c)
		if !strings.Contains(c, "/") {
			a, err := netip.ParseAddr(c)
			if err != nil {
				return nil, fmt.Errorf("privnet: parse allow-list entry %q: %w", c, err)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(c)
		if err != nil {
			return nil, fmt.Errorf("privnet: parse allow-list entry %q: %w", c, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// IsPrivateAddr reports whether dialling a is forbidden: a is in a
// special-purpose range (see IsSpecialPurpose) and not in the allow-list.
func (d *Detector) IsPrivateAddr(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	if a.IsValid() && inAny(d.deny, a) {
		return true
	}
	if d.allowed(a) {
		return false
	}
	if a.Is6() && nat64.Contains(a) {
		// The allow-list may name the IPv4 address a NAT64 gateway will
		// reach.
		return d.IsPrivateAddr(embeddedV4(a))
	}
	return IsSpecialPurpose(a)
}

func (d *Detector) allowed(a netip.Addr) bool {
	return a.IsValid() && inAny(d.allow, a)
}

// IsPrivate reports whether host, a URL's host with or without a port, is
// private judging from the host alone, without any DNS lookup. The host is
// read as the crawler's URLs are (urlnorm.NormalizeHost: as browsers read
// it), so no spelling of an address gets around the check:
//
//   - a literal IPv4 or IPv6 address, including the numeric forms browsers
//     accept such as "2130706433", "0x7f.1" and "127.1", is private if
//     IsPrivateAddr says so;
//   - "localhost" and its sub-domains name the loopback addresses (RFC 6761),
//     so they are private unless the allow-list covers 127.0.0.1 or ::1;
//   - other names that can only be local (single-label names such as
//     "intranet", which resolvers complete with local search domains, and the
//     special-use domains local, internal, home.arpa, test, invalid and a few
//     de-facto private ones) are private unless the allow-list is not empty,
//     in which case the dial-time check decides by address;
//   - any other name is not private here: only the address it resolves to
//     when dialled can tell, which is what Control checks.
//
// An empty or malformed host, or one browsers refuse (a name that ends in a
// number but is no IPv4 address, such as "256.256.256.256"), gives an
// error wrapping ErrInvalidHost.
func (d *Detector) IsPrivate(host string) (bool, error) {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), ".")
	if host == "" {
		return false, fmt.Errorf("%w: empty host", ErrInvalidHost)
	}
	if a, err := netip.ParseAddr(host); err == nil { // IPv6 with a zone too
		return d.IsPrivateAddr(a), nil
	}
	name, err := urlnorm.NormalizeHost(host)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrInvalidHost, err)
	}
	if a, err := netip.ParseAddr(name); err == nil {
		return d.IsPrivateAddr(a), nil
	}
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		loopback := !d.allowed(netip.AddrFrom4([4]byte{127, 0, 0, 1})) &&
			!d.allowed(netip.IPv6Loopback())
		return loopback, nil
	}
	if isLocalName(name) {
		return len(d.allow) == 0, nil
	}
	return false, nil
}

// localSuffixes are domains that never resolve on the public Internet: the
// special-use names of RFC 6761, 6762, 8375 and ICANN's 2024 reservation of
// "internal", plus the names that home and corporate networks use by
// convention and ICANN has withheld because of that.
var localSuffixes = []string{
	"local", "internal", "home.arpa", "test", "invalid", "localdomain",
	"lan", "home", "corp", "intranet", "private",
}

func isLocalName(name string) bool {
	if !strings.Contains(name, ".") {
		return true
	}
	for _, s := range localSuffixes {
		if name == s || strings.HasSuffix(name, "."+s) {
			return true
		}
	}
	return false
}

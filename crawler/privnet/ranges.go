package privnet

import "net/netip"

// specialV4 lists the IANA IPv4 Special-Purpose Address Registry
// (https://www.iana.org/assignments/iana-ipv4-special-registry), plus
// multicast and the reserved class E space, which are not in that registry
// but are no more a web server's address than the rest. Entries that the
// registry marks "globally reachable" (the AS112 and AMT anycast blocks) are
// kept too: no web site lives there, and a crawler has no business probing
// them.
var specialV4 = mustPrefixes(
	"0.0.0.0/8",          // "this network" (RFC 791); 0.0.0.0 dials the local host
	"10.0.0.0/8",         // private use (RFC 1918)
	"100.64.0.0/10",      // shared address space, carrier-grade NAT (RFC 6598)
	"127.0.0.0/8",        // loopback (RFC 1122)
	"169.254.0.0/16",     // link-local, including cloud metadata 169.254.169.254 (RFC 3927)
	"172.16.0.0/12",      // private use (RFC 1918)
	"192.0.0.0/24",       // IETF protocol assignments, DS-Lite, NAT64 discovery (RFC 6890)
	"192.0.2.0/24",       // documentation TEST-NET-1 (RFC 5737)
	"192.31.196.0/24",    // AS112-v4 (RFC 7535)
	"192.52.193.0/24",    // AMT (RFC 7450)
	"192.88.99.0/24",     // deprecated 6to4 relay anycast (RFC 7526)
	"192.168.0.0/16",     // private use (RFC 1918)
	"192.175.48.0/24",    // direct delegation AS112 service (RFC 7534)
	"198.18.0.0/15",      // benchmarking (RFC 2544)
	"198.51.100.0/24",    // documentation TEST-NET-2 (RFC 5737)
	"203.0.113.0/24",     // documentation TEST-NET-3 (RFC 5737)
	"224.0.0.0/4",        // multicast (RFC 5771)
	"240.0.0.0/4",        // reserved (RFC 1112), includes the broadcast address
	"255.255.255.255/32", // limited broadcast (RFC 919), listed for clarity
)

// specialV6 lists the IANA IPv6 Special-Purpose Address Registry
// (https://www.iana.org/assignments/iana-ipv6-special-registry) and the
// other non-global blocks of the IPv6 address space. Anything outside
// 2000::/3 is caught by isGlobalUnicast6 anyway; the blocks below 2000::/3 are
// listed so that the table reads like the registry.
//
// 6to4 (2002::/16) and Teredo (2001::/32, inside 2001::/23) are private as a
// whole: each of their addresses tunnels to an IPv4 address embedded in it,
// the registry lists both blocks, and no web server needs them.
var specialV6 = mustPrefixes(
	"::/128",            // unspecified (RFC 4291)
	"::1/128",           // loopback (RFC 4291)
	"::/96",             // deprecated IPv4-compatible addresses (RFC 4291)
	"::ffff:0:0:0/96",   // SIIT IPv4-translated addresses (RFC 6145)
	"64:ff9b:1::/48",    // local-use IPv4/IPv6 translation (RFC 8215)
	"100::/64",          // discard-only (RFC 6666)
	"100:0:0:1::/64",    // dummy IPv6 prefix (RFC 9780)
	"2001::/23",         // IETF protocol assignments: Teredo, benchmarking, ORCHID, AMT, AS112 (RFC 2928)
	"2001:db8::/32",     // documentation (RFC 3849)
	"2002::/16",         // 6to4 (RFC 3056)
	"2620:4f:8000::/48", // direct delegation AS112 service (RFC 7534)
	"3fff::/20",         // documentation (RFC 9637)
	"5f00::/16",         // segment routing SIDs (RFC 9602)
	"fc00::/7",          // unique-local (RFC 4193)
	"fe80::/10",         // link-local (RFC 4291)
	"fec0::/10",         // deprecated site-local (RFC 3879)
	"ff00::/8",          // multicast (RFC 4291)
)

var (
	// globalUnicast6 is the only block of the IPv6 space that IANA hands
	// out for public unicast use (RFC 4291 section 2.4); everything else
	// is reserved.
	globalUnicast6 = netip.MustParsePrefix("2000::/3")

	// nat64 is the well-known NAT64 prefix (RFC 6052): its addresses reach
	// the IPv4 address in their low 32 bits, so they are judged by that.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)

func mustPrefixes(cidrs ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(cidrs))
	for i, c := range cidrs {
		out[i] = netip.MustParsePrefix(c)
	}
	return out
}

// IsSpecialPurpose reports whether a is in an IANA special-purpose, private,
// reserved, multicast or otherwise non-public range, for IPv4 and IPv6.
// IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) addresses are
// judged by the IPv4 address they carry. An invalid address is special.
func IsSpecialPurpose(a netip.Addr) bool {
	if !a.IsValid() {
		return true
	}
	a = a.WithZone("").Unmap()
	if a.Is4() {
		return inAny(specialV4, a)
	}
	if nat64.Contains(a) {
		return IsSpecialPurpose(embeddedV4(a))
	}
	if !globalUnicast6.Contains(a) {
		return true
	}
	return inAny(specialV6, a)
}

// embeddedV4 returns the IPv4 address in the low 32 bits of an IPv6 one.
func embeddedV4(a netip.Addr) netip.Addr {
	b := a.As16()
	return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
}

func inAny(prefixes []netip.Prefix, a netip.Addr) bool {
	for _, p := range prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

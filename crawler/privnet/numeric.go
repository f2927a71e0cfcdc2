package privnet

import (
	"net/netip"
	"strconv"
	"strings"
)

// parseNumericIPv4 parses the IPv4 forms that browsers (the WHATWG URL
// standard) and inet_aton accept besides dotted-quad: one to four parts, each
// decimal, octal (leading 0) or hexadecimal (leading 0x), the last filling
// the remaining bytes, so "2130706433", "0x7f.1" and "0177.0.0.01" all mean
// 127.0.0.1. Go's URL parser leaves such hosts alone, so a page can hide a
// loopback address in one; judging them as addresses closes that hole.
func parseNumericIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Part(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func parseIPv4Part(p string) (uint64, bool) {
	base := 10
	switch {
	case p == "":
		return 0, false
	case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true // "0x" alone is zero in the WHATWG parser
		}
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	for _, c := range p {
		if c == '+' || c == '-' || c == '_' {
			return 0, false // ParseUint would accept none of these, but be explicit
		}
	}
	n, err := strconv.ParseUint(p, base, 32)
	return n, err == nil
}

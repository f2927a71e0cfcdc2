package urlnorm

import (
	"fmt"
	"net/netip"
	"strings"
)

// endsInNumber reports whether the ASCII host (without a trailing dot)
// ends in a number, which makes it an IPv4 address or invalid, never a
// domain name (WHATWG URL standard, "ends in a number checker"): its last
// label is all decimal digits, or "0x" followed by hexadecimal digits.
func endsInNumber(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if last[0] == '0' && len(last) >= 2 && (last[1] == 'x' || last[1] == 'X') {
		_, ok := parseIPv4Number(last)
		return ok
	}
	for i := 0; i < len(last); i++ {
		if last[i] < '0' || last[i] > '9' {
			return false
		}
	}
	return true
}

// parseIPv4 parses a host that ends in a number with the WHATWG URL
// standard's IPv4 parser, which is what browsers (and inet_aton) read: one
// to four dot-separated numbers, each decimal, octal (leading "0") or
// hexadecimal (leading "0x"), the last filling the bytes the others leave,
// so "2130706433", "0x7f.1" and "0177.0.0.01" are all 127.0.0.1. A trailing
// dot has been removed already.
func parseIPv4(host string) (netip.Addr, error) {
	var nums [4]uint64
	n := 0
	for part := range strings.SplitSeq(host, ".") {
		if n == len(nums) {
			return netip.Addr{}, fmt.Errorf("%w: more than four parts in IPv4 address %q", ErrInvalidHost, clip(host))
		}
		v, ok := parseIPv4Number(part)
		if !ok {
			return netip.Addr{}, fmt.Errorf("%w: bad number %q in IPv4 address %q", ErrInvalidHost, clip(part), clip(host))
		}
		nums[n] = v
		n++
	}
	var addr uint64
	for i, v := range nums[:n-1] {
		if v > 255 {
			return netip.Addr{}, fmt.Errorf("%w: part over 255 in IPv4 address %q", ErrInvalidHost, clip(host))
		}
		addr |= v << (8 * (3 - i))
	}
	last := nums[n-1]
	if last >= 1<<(8*(5-n)) {
		return netip.Addr{}, fmt.Errorf("%w: IPv4 address %q out of range", ErrInvalidHost, clip(host))
	}
	addr |= last
	return netip.AddrFrom4([4]byte{byte(addr >> 24), byte(addr >> 16), byte(addr >> 8), byte(addr)}), nil
}

// parseIPv4Number parses one part of an IPv4 address: decimal, octal after
// a leading "0", hexadecimal after "0x" or "0X" ("0x" alone is 0). Values
// beyond 32 bits are capped at 1<<32, which every caller rejects, so that
// any number of digits is read without overflow.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	radix := uint64(10)
	switch {
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		s, radix = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, radix = s[1:], 8
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d uint64
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		case 'A' <= c && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= radix {
			return 0, false
		}
		v = min(v*radix+d, 1<<32)
	}
	return v, true
}

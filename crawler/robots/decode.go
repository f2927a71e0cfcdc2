package robots

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// decodeUnreserved decodes percent-encoded unreserved characters (RFC 3986
// 2.3) in a path or pattern, so that "/%7Euser" and "/~user" compare equal
// as RFC 9309 2.2.2 requires. Other escapes are kept (grobotstxt has
// already upper-cased their hex digits in patterns).
func decodeUnreserved(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, ok := unhex2(s[i+1], s[i+2]); ok && unreserved(v) {
				b.WriteByte(v)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func unhex2(hi, lo byte) (byte, bool) {
	h, ok1 := unhex(hi)
	l, ok2 := unhex(lo)
	return h<<4 | l, ok1 && ok2
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// maxParsedDelay bounds the Crawl-delay values parsed, so absurd values do
// not overflow time.Duration; callers apply their own, lower cap.
const maxParsedDelay = 24 * time.Hour

// parseDelay parses a Crawl-delay value: a non-negative number of seconds,
// possibly fractional ("0.5").
func parseDelay(v string) (time.Duration, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || f < 0 {
		return 0, false
	}
	if f > maxParsedDelay.Seconds() {
		return maxParsedDelay, true
	}
	return time.Duration(f * float64(time.Second)), true
}

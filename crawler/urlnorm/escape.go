package urlnorm

// charTable marks the bytes that may appear unencoded in a URL component.
type charTable [256]bool

var (
	// pathChars: pchar / "/" (RFC 3986 3.3).
	pathChars = makeTable("/:@!$&'()*+,;=")
	// queryChars: pchar / "/" / "?" (RFC 3986 3.4), less "'", which
	// browsers encode in the query of an http(s) URL (the WHATWG URL
	// standard's special-query percent-encode set), so the canonical form
	// is what they send.
	queryChars = makeTable("/?:@!$&()*+,;=")
)

// makeTable returns a table allowing the unreserved characters plus extra.
func makeTable(extra string) charTable {
	var t charTable
	for c := 0; c < 256; c++ {
		t[c] = isUnreserved(byte(c))
	}
	for i := 0; i < len(extra); i++ {
		t[extra[i]] = true
	}
	return t
}

// isUnreserved reports whether c is an RFC 3986 unreserved character, the
// only ones whose percent-encoding is equivalent to the character itself.
func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

const upperHex = "0123456789ABCDEF"

// appendEscaped appends s with its percent-encoding normalised: valid
// escapes of unreserved characters decoded, other escapes upper-cased, bytes
// not allowed raw (space, non-ASCII, controls, '"', '<' ...) encoded, and a
// '%' that starts no valid escape encoded as "%25" so the result parses.
// With inPath, a backslash is a slash, as in the path of an http(s) URL
// for browsers.
func appendEscaped(b []byte, s string, allowed *charTable, inPath bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				v := unhex(s[i+1])<<4 | unhex(s[i+2])
				if isUnreserved(v) {
					b = append(b, v)
				} else {
					b = append(b, '%', upperHex[v>>4], upperHex[v&15])
				}
				i += 2
				continue
			}
			b = append(b, "%25"...)
			continue
		}
		switch {
		case allowed[c]:
			b = append(b, c)
		case c == '\\' && inPath:
			b = append(b, '/')
		default:
			b = append(b, '%', upperHex[c>>4], upperHex[c&15])
		}
	}
	return b
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

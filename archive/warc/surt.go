package warc

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// SURT returns the Sort-friendly URI Reordering Transform of a URL as the
// readers of CDXJ indexes compute it: pywb looks a URL up by this key, and
// warcio's and cdxj-indexer's indexes are keyed by it, all three with the
// default canonicalisation of the Internet Archive's surt package, which
// this follows rule for rule:
//
//   - The scheme, the user information, the fragment and a default port
//     (80 for http, 443 for https) are left out; another port follows the
//     host: "example.com:8080)".
//   - The host is lowered, percent-decoded, converted to IDNA if it is
//     not ASCII, stripped of leading and trailing dots and of a leading
//     "www." ("www2." and so on), and its dot-separated parts reversed and
//     joined with commas, an IPv4 address's too: "127.0.0.1" is
//     "1,0,0,127". The numeric forms of IPv4 addresses are written dotted
//     first ("2130706433" and "127.1" are 127.0.0.1). An IPv6 address
//     loses its brackets and has no dot to reverse: "[::1]:8080" is
//     "::1:8080".
//   - The path is percent-decoded, has its "." and ".." segments and
//     empty segments resolved, is escaped again (control characters,
//     space, '#', '%' and bytes beyond ASCII), lowered, and loses a
//     trailing slash unless it is "/" alone.
//   - The query is decoded and escaped again the same way, loses the
//     session identifiers surt knows (jsessionid, phpsessid, sid,
//     ASPSESSIONID, cfid and cftoken), is lowered, and has its parameters
//     sorted by name, then value; an empty query is left out.
//
// So "http://www.Example.com/A/?b=1&a=2#top" is "com,example)/a?a=2&b=1".
// An empty URL is "-", a URL without a host is kept with its scheme
// ("mailto:x"), and one that surt rejects (a port that is not a number
// from 0 to 65535) is only lowered. Internationalised names are converted
// with UTS #46 transitional processing, which agrees with the IDNA 2003 of
// surt for the names in use.
func SURT(raw string) string {
	if raw == "" {
		return "-"
	}
	if strings.HasPrefix(raw, "filedesc") { // an ARC file's header record
		return raw
	}
	u, ok := splitURL(raw)
	if !ok {
		return lowerASCII(raw)
	}
	u.canonicalize()
	return u.key()
}

// surtURL is a URL split as surt splits it; query is nil when there is
// none (or it is empty), port is -1 when there is none.
type surtURL struct {
	scheme, host, path string
	query              *string
	port               int
}

var (
	// A URL's parts, after RFC 2396's regular expression: 2 scheme,
	// 5 authority, 6 path, 8 query, 10 fragment.
	uriParts  = regexp.MustCompile(`(?s)^(([a-zA-Z][a-zA-Z0-9+.-]*):)?((//([^/?#]*))?([^?#]*)(\?([^#]*))?)?(#(.*))?$`)
	hasScheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+\-.]*:`)
)

// splitURL splits raw as surt does; it reports false where surt fails.
func splitURL(raw string) (*surtURL, bool) {
	s := strings.Trim(raw, " \t\n\r\v\f")
	s = strings.NewReplacer("\n", "", "\r", "", "\t", "").Replace(s)
	if s == "" {
		return nil, false
	}
	if !hasScheme.MatchString(s) {
		s = "http://" + s
	}
	// "http://https://example.com" is taken for https://example.com.
	for _, p := range []string{"http://", "https://"} {
		if rest, ok := strings.CutPrefix(s, p); ok && (strings.HasPrefix(rest, "http://") || strings.HasPrefix(rest, "https://")) {
			return splitURL(rest)
		}
	}
	m := uriParts.FindStringSubmatch(s)
	u := &surtURL{scheme: m[2], path: m[6], port: -1}
	if m[8] != "" {
		u.query = &m[8]
	}
	netloc := strings.TrimRight(m[5], ":")
	hostinfo := netloc[strings.LastIndexByte(netloc, '@')+1:]
	var port string
	if _, bracketed, ok := strings.Cut(hostinfo, "["); ok {
		var rest string
		u.host, rest, _ = strings.Cut(bracketed, "]")
		_, port, _ = strings.Cut(rest, ":")
	} else {
		u.host, port, _ = strings.Cut(hostinfo, ":")
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 0 || n > 65535 || strings.TrimLeft(port, "0123456789") != "" {
			return nil, false
		}
		if n > 0 { // port 0 counts as none
			u.port = n
		}
	}
	if u.host == "" && u.path != "" && strings.HasPrefix(u.scheme, "http") {
		// "http:///example.com/a": the host is in the path.
		u.host, u.path, _ = strings.Cut(strings.TrimLeft(u.path, "/"), "/")
		u.path = "/" + u.path
	}
	return u, true
}

// canonicalize applies surt's default canonicalisation: Google's, then
// the Internet Archive's.
func (u *surtURL) canonicalize() {
	if u.query != nil {
		q := escapeOnce(unescapeRepeatedly(*u.query))
		u.query = &q
	}
	if u.host != "" {
		u.host = canonicalHost(u.host)
		if u.scheme != "dns" {
			u.host = wwwPrefix.ReplaceAllString(u.host, "")
		}
	}
	path := unescapeRepeatedly(u.path)
	if u.host != "" {
		path = resolvePath(path)
	}
	path = lowerASCII(escapeOnce(path))
	path = stripSessionIDs(path, pathSessionIDs)
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	u.path = path

	if u.port == 80 && strings.EqualFold(u.scheme, "http") || u.port == 443 && strings.EqualFold(u.scheme, "https") {
		u.port = -1
	}
	if u.query != nil {
		q := sortQuery(lowerASCII(stripSessionIDs(*u.query, querySessionIDs)))
		u.query = &q
		if q == "" {
			u.query = nil
		}
	}
}

// key writes the SURT of a canonical u.
func (u *surtURL) key() string {
	var b strings.Builder
	if u.host == "" {
		b.WriteString(u.scheme + ":")
	} else {
		labels := strings.Split(u.host, ".")
		slices.Reverse(labels)
		b.WriteString(strings.Join(labels, ","))
		if u.port >= 0 {
			b.WriteString(":" + strconv.Itoa(u.port))
		}
		b.WriteByte(')')
	}
	switch {
	case u.path != "":
		b.WriteString(u.path)
	case u.query != nil:
		b.WriteByte('/')
	}
	if u.query != nil {
		b.WriteString("?" + *u.query)
	}
	return b.String()
}

var wwwPrefix = regexp.MustCompile(`^www[0-9]*\.`)

// idnaProfile converts internationalised hosts (see SURT).
var idnaProfile = idna.New(idna.MapForLookup(), idna.Transitional(true), idna.StrictDomainName(false))

// canonicalHost is the host's canonical form, before it is reversed.
func canonicalHost(host string) string {
	host = unescapeRepeatedly(host)
	if !isASCII(host) {
		// Bytes that are not UTF-8 are dropped first, as surt does; a
		// name IDNA refuses stays as it is (escaped below).
		if ascii, err := idnaProfile.ToASCII(strings.ToValidUTF8(host, "")); err == nil {
			host = ascii
		}
	}
	host = strings.Trim(strings.ReplaceAll(host, "..", "."), ".")
	if ip, ok := numericIPv4(host); ok {
		return ip
	}
	return lowerASCII(escapeOnce(lowerASCII(host)))
}

var (
	decimalIPv4 = regexp.MustCompile(`^[1-9][0-9]*(\.[0-9]+){0,3}$`)
	octalIPv4   = regexp.MustCompile(`^0[0-7]*(\.[0-7]+){0,3}$`)
)

// numericIPv4 returns the dotted form of a host that surt takes for an
// IPv4 address: digits alone (a 32-bit number, higher bits dropped), or
// one to four numbers, decimal or octal (leading 0), as inet_aton reads
// them. A host that inet_aton refuses ("1.2.3.999") is surt's to look
// up in the DNS, which cannot resolve it: it is a name.
func numericIPv4(host string) (string, bool) {
	if host != "" && strings.Trim(host, "0123456789") == "" {
		var n uint32
		for _, c := range []byte(host) {
			n = n*10 + uint32(c-'0') // modulo 2^32, as the mask does
		}
		return dotted(n), true
	}
	if !decimalIPv4.MatchString(host) && !octalIPv4.MatchString(host) {
		return "", false
	}
	parts := strings.Split(host, ".")
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base := 10
		if len(p) > 1 && p[0] == '0' {
			base = 8
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return "", false
		}
		vals[i] = v
	}
	// The last number fills the bytes the others leave.
	last := len(vals) - 1
	if vals[last] >= 1<<(8*(4-last)) {
		return "", false
	}
	n := vals[last]
	for i, v := range vals[:last] {
		if v > 255 {
			return "", false
		}
		n |= v << (8 * (3 - i))
	}
	return dotted(uint32(n)), true
}

func dotted(n uint32) string {
	return strconv.Itoa(int(n>>24)) + "." + strconv.Itoa(int(n>>16&255)) + "." + strconv.Itoa(int(n>>8&255)) + "." + strconv.Itoa(int(n&255))
}

// resolvePath resolves the "." and ".." segments of a path and drops its
// empty ones (but a trailing slash); ".." above the root is kept.
func resolvePath(path string) string {
	if path == "" {
		return "/"
	}
	segs := strings.Split(path, "/")[1:]
	var kept []string
	for _, s := range segs {
		switch {
		case s == ".":
		case s == ".." && len(kept) > 0:
			kept = kept[:len(kept)-1]
		default:
			kept = append(kept, s)
		}
	}
	var b strings.Builder
	b.WriteByte('/')
	for i, s := range kept {
		switch {
		case i == len(kept)-1:
			b.WriteString(s)
		case s != "":
			b.WriteString(s + "/")
		}
	}
	return b.String()
}

// sessionID is a pattern of a session identifier in a path or a query,
// and the groups of the match that are kept; a string without hint cannot
// match.
type sessionID struct {
	hint string
	re   *regexp.Regexp
	keep []int
}

var (
	pathSessionIDs = []sessionID{
		{".aspx", regexp.MustCompile(`(?i)^(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)([^?]+\.aspx.*)$`), []int{1, 3}},
		{".aspx", regexp.MustCompile(`(?i)^(.*/)(\([0-9a-z]{24}\)/)([^?]+\.aspx.*)$`), []int{1, 3}},
	}
	querySessionIDs = []sessionID{
		{"sessionid", regexp.MustCompile(`(?i)^(.*)(?:jsessionid=[0-9a-z]{32})(?:&(.*))?$`), []int{1, 2}},
		{"sessid", regexp.MustCompile(`(?i)^(.*)(?:phpsessid=[0-9a-z]{32})(?:&(.*))?$`), []int{1, 2}},
		{"sid=", regexp.MustCompile(`(?i)^(.*)(?:sid=[0-9a-z]{32})(?:&(.*))?$`), []int{1, 2}},
		{"sessionid", regexp.MustCompile(`(?i)^(.*)(?:aspsessionid[a-z]{8}=[a-z]{24})(?:&(.*))?$`), []int{1, 2}},
		{"cftoken=", regexp.MustCompile(`(?i)^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$`), []int{1, 2}},
	}
)

// stripSessionIDs removes what each pattern matches, in turn.
func stripSessionIDs(s string, ids []sessionID) string {
	for _, id := range ids {
		if !containsFold(s, id.hint) {
			continue
		}
		m := id.re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		var b strings.Builder
		for _, g := range id.keep {
			b.WriteString(m[g])
		}
		s = b.String()
	}
	return s
}

// sortQuery sorts a query's parameters by name, then value; a name
// without '=' comes before the same name with one.
func sortQuery(q string) string {
	if len(q) <= 1 {
		return q
	}
	type param struct {
		name, value string
		eq          bool
	}
	var params []param
	for p := range strings.SplitSeq(q, "&") {
		name, value, eq := strings.Cut(p, "=")
		params = append(params, param{name, value, eq})
	}
	slices.SortStableFunc(params, func(a, b param) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if a.eq != b.eq {
			if a.eq {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.value, b.value)
	})
	var b strings.Builder
	for i, p := range params {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.name)
		if p.eq {
			b.WriteString("=" + p.value)
		}
	}
	return b.String()
}

// unescapeRepeatedly decodes %XX escapes until none is left; a '%' not
// followed by two hex digits stays.
func unescapeRepeatedly(s string) string {
	for {
		u := unescape(s)
		if u == s {
			return s
		}
		s = u
	}
}

func unescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// escapeOnce escapes, as %XX, the bytes surt does: controls, space, '#',
// '%', DEL and every byte beyond ASCII.
func escapeOnce(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == '#' || c == '%' || c >= 0x7f {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// containsFold reports whether s holds sub (lower case ASCII) in any case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// lowerASCII lowers the ASCII letters of s only, as surt (on bytes) does.
func lowerASCII(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' })
	if i < 0 {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

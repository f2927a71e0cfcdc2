package warc

import (
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

var wwwPrefix = regexp.MustCompile(`^www\d*\.`)

// SURT returns the Sort-friendly URI Reordering Transform of a URL as pywb
// keys its CDXJ indexes: the host's labels reversed and comma separated
// (an IP address as it is), a port other than the scheme's, ")", then the
// path and the sorted query, all in lower case and without the scheme,
// "www." and the fragment: "http://www.Example.com/A?b=1&a=2" is
// "com,example)/a?a=2&b=1". A URL that does not parse is only lowered.
func SURT(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return strings.ToLower(raw)
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	var b strings.Builder
	if net.ParseIP(host) != nil {
		b.WriteString(host)
	} else {
		labels := strings.Split(wwwPrefix.ReplaceAllString(host, ""), ".")
		slices.Reverse(labels)
		b.WriteString(strings.Join(labels, ","))
	}
	if port := u.Port(); port != "" && !(u.Scheme == "http" && port == "80") && !(u.Scheme == "https" && port == "443") {
		b.WriteString(":" + port)
	}
	b.WriteByte(')')
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	b.WriteString(strings.ToLower(path))
	if u.RawQuery != "" {
		args := strings.Split(u.RawQuery, "&")
		slices.Sort(args)
		b.WriteString("?" + strings.ToLower(strings.Join(args, "&")))
	}
	return b.String()
}

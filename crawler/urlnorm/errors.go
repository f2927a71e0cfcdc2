package urlnorm

import "errors"

// Sentinel errors returned (wrapped) by Normalize; match them with errors.Is.
var (
	// ErrNotAbsolute reports a URL without a scheme, such as "/path" or
	// "example.com/x": resolve it against its base URL first.
	ErrNotAbsolute = errors.New("urlnorm: URL is not absolute")
	// ErrUnsupportedScheme reports a scheme other than http and https
	// (mailto:, javascript:, ftp:, data: ...), which a web crawler cannot fetch.
	ErrUnsupportedScheme = errors.New("urlnorm: unsupported scheme")
	// ErrMissingHost reports an http(s) URL whose host is empty ("http://",
	// "http://user@/x", "http://:80/").
	ErrMissingHost = errors.New("urlnorm: missing host")
	// ErrInvalidHost reports a host that is not a valid domain name, IPv4
	// address or IPv6 literal, or an IDN that fails IDNA processing.
	ErrInvalidHost = errors.New("urlnorm: invalid host")
	// ErrInvalidPort reports a port that is not a decimal number in 1-65535.
	ErrInvalidPort = errors.New("urlnorm: invalid port")
)

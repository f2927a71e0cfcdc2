package warc

import (
	"net/http"
	"net/url"
	"time"
)

// Exchange is one HTTP request and its response: what a Writer archives
// (a response record, and a request record beside it), and what Read and
// ReadDir give back of a response record.
type Exchange struct {
	// URL is the URL requested: the records' WARC-Target-URI.
	URL string
	// Date is when the response arrived: the records' WARC-Date.
	Date time.Time
	// Request is the request sent, written as a request record, or nil
	// for none. Read leaves it nil: request records are not read.
	Request *Request
	// Response is the response. Required.
	Response *Response
}

// Request is the HTTP request of an Exchange.
type Request struct {
	// Method is the request's method. Default: GET.
	Method string
	// URL is the URL the request was sent to: its path and query make
	// the request line, its host the Host header. A Request without one
	// is not written.
	URL *url.URL
	// Header holds the request's headers, written sorted by name, in
	// the case of the map's keys. Host, Authorization,
	// Proxy-Authorization and Cookie are left out: an archive is shared
	// and published, and must not give credentials away.
	Header http.Header
}

// Response is the HTTP response of an Exchange.
type Response struct {
	// Proto is the protocol of the response. "HTTP/1.0" is written as
	// it is, any other (HTTP/2.0 too) as "HTTP/1.1": a "HTTP/2.0" status
	// line is one that replay tools (pywb's warcio) may not take.
	Proto string
	// StatusCode is the response's status code.
	StatusCode int
	// Status is the status line after the protocol ("200 OK"). Default:
	// StatusCode and its text in net/http.
	Status string
	// Header holds the response's headers, written sorted by name, in
	// the case of the map's keys, Transfer-Encoding left out (Body has
	// none).
	Header http.Header
	// Body is the body as the server sent it: with its Content-Encoding,
	// without a Transfer-Encoding (chunks joined), as WARC wants. The
	// Writer keeps no reference to it.
	Body []byte
	// Truncated says why Body is not the whole body, if it is not: the
	// record's WARC-Truncated field. Read gives the field as the file has
	// it; if the file does not say, TruncatedLength for a body it cut at
	// its limit and TruncatedUnspecified for an HTTP message that ends
	// before its length or last chunk.
	Truncated Truncation
}

// Truncation is why a record's body is not the whole body, in the words
// of the WARC-Truncated field; "" if it is whole. Other values than these
// may come from other tools' files.
type Truncation string

const (
	// TruncatedLength: the body is cut at a size limit.
	TruncatedLength Truncation = "length"
	// TruncatedTime: the body is cut at a time limit.
	TruncatedTime Truncation = "time"
	// TruncatedDisconnect: the connection broke before the body's end.
	TruncatedDisconnect Truncation = "disconnect"
	// TruncatedUnspecified: the body is cut, or was not read, for another
	// reason.
	TruncatedUnspecified Truncation = "unspecified"
)

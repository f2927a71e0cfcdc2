package crawler

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"

	"github.com/linksrus/linksrus/linkgraph"
)

// This file: what the fetch stage accepts of a response and its body.

// acceptBody makes the checks of a page's body, decoded of its
// Content-Encoding, that the crawl and an import both make: within
// maxBody, HTML (sniffed, as a browser would, when the response had no
// Content-Type), and decodable to UTF-8, which it then is. It reports
// false, with the reason recorded, if the page goes no further.
func (p *Payload) acceptBody(maxBody int64) bool {
	if int64(len(p.Body)) > maxBody {
		p.skip(ReasonTooLarge, fmt.Errorf("crawler: body exceeds %d bytes", maxBody))
		return false
	}
	if p.ContentType == "" {
		if sniffed := http.DetectContentType(p.Body); !isHTML(sniffed) {
			p.skip(ReasonContentType, nil)
			return false
		}
	}
	if err := p.decodeCharset(); err != nil {
		p.skip(ReasonCharset, err)
		return false
	}
	return true
}

// validator returns a response's validator header if it is one the graph
// can store (see linkgraph.MaxValidatorLength): a value that cannot be
// stored is treated as absent, which only costs a full request next time.
func validator(h http.Header, name string) (string, bool) {
	v := h.Get(name)
	if v == "" || len(v) > linkgraph.MaxValidatorLength || !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
		return "", false
	}
	return v, true
}

// headSaysNotHTML reports whether a HEAD's answer settles that the resource
// is not HTML: a 2xx with a Content-Type that is not HTML. Anything else
// (HTML, no type, a redirect, an error such as 405 from servers without
// HEAD) is for the GET to settle.
func headSaysNotHTML(res *http.Response) bool {
	ct := res.Header.Get("Content-Type")
	return res.StatusCode >= 200 && res.StatusCode <= 299 && ct != "" && !isHTML(ct)
}

// isHTML reports whether a Content-Type names an HTML document.
func isHTML(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.TrimSpace(mt)
	return strings.EqualFold(mt, "text/html") || strings.EqualFold(mt, "application/xhtml+xml")
}

// readBounded appends r's content to buf until EOF or until limit bytes
// have been read, reusing buf's capacity; sizeHint (a Content-Length, or -1)
// lets it grow buf once instead of doubling.
func readBounded(buf []byte, r io.Reader, limit, sizeHint int64) ([]byte, error) {
	if sizeHint > 0 && sizeHint < limit && int64(cap(buf)) < sizeHint+1 {
		buf = make([]byte, 0, sizeHint+1) // +1 to see EOF without growing
	}
	for int64(len(buf)) < limit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		end := min(int64(cap(buf)), limit)
		n, err := r.Read(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// decodeCharset converts p.Body to UTF-8, following the HTML standard's
// encoding sniffing (BOM, Content-Type charset, <meta> prescan).
func (p *Payload) decodeCharset() error {
	enc, name, certain := charset.DetermineEncoding(p.Body, p.ContentType)
	switch {
	case name == "utf-8":
		return nil
	case !certain && utf8.Valid(p.Body):
		// Nothing declared the encoding and the page is valid UTF-8 (or
		// plain ASCII): the standard's windows-1252 guess would only mangle
		// it. Real text in a legacy encoding is almost never valid UTF-8.
		return nil
	case asciiCompatible(name) && isASCII(p.Body):
		return nil // nothing to convert: no copy
	}
	decoded, err := enc.NewDecoder().Bytes(p.Body)
	if err != nil {
		return fmt.Errorf("crawler: decode %s: %w", name, err)
	}
	p.Body = decoded
	return nil
}

// asciiCompatible reports whether an encoding maps the bytes 0x00-0x7F to
// ASCII, so that pure-ASCII content needs no decoding.
func asciiCompatible(name string) bool {
	return name == "windows-1252" || strings.HasPrefix(name, "iso-8859-") || strings.HasPrefix(name, "windows-125")
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// robotsDirectives reads X-Robots-Tag headers. Directives scoped to a named
// crawler ("googlebot: noindex") are not ours and are ignored.
func robotsDirectives(values []string) (noIndex, noFollow bool) {
	for _, v := range values {
		if strings.Contains(v, ":") {
			continue
		}
		ni, nf := parseRobotsContent(v)
		noIndex, noFollow = noIndex || ni, noFollow || nf
	}
	return noIndex, noFollow
}

// parseRobotsContent parses a robots directive list such as
// "noindex, nofollow" or "none".
func parseRobotsContent(v string) (noIndex, noFollow bool) {
	for d := range strings.SplitSeq(v, ",") {
		switch strings.ToLower(strings.TrimSpace(d)) {
		case "noindex":
			noIndex = true
		case "nofollow":
			noFollow = true
		case "none":
			noIndex, noFollow = true, true
		}
	}
	return noIndex, noFollow
}

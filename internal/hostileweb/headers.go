package hostileweb

import (
	"bytes"
	"net/http"
	"strconv"
)

// headerValueLen is the length of one filler header value: long, but under
// the 8 KiB line limits common in HTTP stacks, so that only the total trips
// a limit.
const headerValueLen = 4000

var headerFiller = bytes.Repeat([]byte{'x'}, headerValueLen)

// serveHugeHeaders answers with HeaderBytes of header lines before a small
// body. It writes the response itself on the hijacked connection, because
// net/http would hold the whole header in memory and refuse to send more
// than its own limits.
func (s *Server) serveHugeHeaders(w http.ResponseWriter, r *http.Request) {
	c, brw, err := s.hijack(w)
	if err != nil {
		return
	}
	defer s.release(c)
	const body = "<!doctype html><html><head><title>huge headers</title></head><body><p>You read all the headers.</p></body></html>\n"
	bw := brw.Writer
	if _, err := bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: " + contentTypeHTML + "\r\nConnection: close\r\n"); err != nil {
		return
	}
	line := make([]byte, 0, headerValueLen+64)
	for i, written := 0, 0; written < s.opts.HeaderBytes; i++ {
		if r.Context().Err() != nil {
			return
		}
		line = append(line[:0], "X-Filler-"...)
		line = strconv.AppendInt(line, int64(i), 10)
		line = append(line, ": "...)
		line = append(line, headerFiller[:min(headerValueLen, max(1, s.opts.HeaderBytes-written-len(line)-2))]...)
		line = append(line, "\r\n"...)
		if _, err := bw.Write(line); err != nil {
			return
		}
		written += len(line)
	}
	if _, err := bw.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body); err != nil {
		return
	}
	_ = bw.Flush()
}

package hostileweb

import (
	"net/http"
	"strings"
	"time"
)

// dripText is what the drip route spells out, one byte at a time.
const dripText = "<!doctype html><html><head><title>drip</title></head><body><p>" +
	"This page arrives one byte at a time and never finishes. </p>"

// serveDrip sends the header at once, then one byte per DripInterval for
// as long as the client waits. A crawler without a total request deadline
// (a per-read timeout is not enough) waits forever.
func (s *Server) serveDrip(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", contentTypeHTML)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(s.opts.DripInterval)
	defer tick.Stop()
	for i := 0; ; i++ {
		if _, err := w.Write([]byte{dripText[i%len(dripText)]}); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}

// endlessChunk is one write of the endless body: valid HTML text, so only a
// size limit (not a parse error) stops a crawler.
var endlessChunk = []byte(strings.Repeat("<p>more and more and more text</p>\n", 1024))

// serveEndless streams a body with no Content-Length that never ends, as
// fast as the client reads it.
func (s *Server) serveEndless(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", contentTypeHTML)
	if _, err := w.Write([]byte("<!doctype html><html><head><title>endless</title></head><body>\n")); err != nil {
		return
	}
	for r.Context().Err() == nil {
		if _, err := w.Write(endlessChunk); err != nil {
			return
		}
	}
}

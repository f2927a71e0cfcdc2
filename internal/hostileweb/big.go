package hostileweb

import (
	"bufio"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// manyLinksItemPrefix is the path prefix of the pages the many-links page
// points to.
const manyLinksItemPrefix = "/trap/many-links/item/"

// serveManyLinks streams one page with ManyLinks distinct links. It is built
// on the fly through a small buffer, so it costs the server a few kilobytes
// however many links it carries.
func (s *Server) serveManyLinks(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", contentTypeHTML)
	bw := bufio.NewWriterSize(w, 32<<10)
	if _, err := io.WriteString(bw, "<!doctype html><html><head><title>many links</title></head><body>\n"); err != nil {
		return
	}
	line := make([]byte, 0, 128)
	for i := range s.opts.ManyLinks {
		if i%1024 == 0 && r.Context().Err() != nil {
			return
		}
		line = append(line[:0], `<a href="`+manyLinksItemPrefix...)
		line = strconv.AppendInt(line, int64(i), 10)
		line = append(line, `">item `...)
		line = strconv.AppendInt(line, int64(i), 10)
		line = append(line, "</a>\n"...)
		if _, err := bw.Write(line); err != nil {
			return
		}
	}
	if _, err := io.WriteString(bw, "</body></html>\n"); err != nil {
		return
	}
	_ = bw.Flush()
}

// serveManyLinksItem serves the small pages the many-links page points to,
// so that a crawler which does follow them finds real pages, not errors.
func (s *Server) serveManyLinksItem(w http.ResponseWriter, r *http.Request) {
	n, ok := parseIndex(r.PathValue("n"), s.opts.ManyLinks)
	if !ok {
		http.NotFound(w, r)
		return
	}
	writeSmallPage(w, "item "+strconv.Itoa(n), "One of very many items.")
}

// nestBlock is how many tags one write of the deep-nesting page carries.
const nestBlock = 1024

var (
	openDivs  = strings.Repeat("<div>", nestBlock)
	closeDivs = strings.Repeat("</div>", nestBlock)
)

// deepNestingLink is the single link, at the innermost level of the
// deep-nesting page; a parser that gives up early never sees it.
const deepNestingLink = `<a href="/pages/1">the bottom</a>`

// serveDeepNesting streams NestingDepth nested <div> elements with a link at
// the bottom. Recursive parsers and tree builders overflow or balloon on it.
func (s *Server) serveDeepNesting(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", contentTypeHTML)
	if _, err := io.WriteString(w, "<!doctype html><html><head><title>deep nesting</title></head><body>\n"); err != nil {
		return
	}
	if !writeRepeated(r, w, openDivs, len("<div>"), s.opts.NestingDepth) {
		return
	}
	if _, err := io.WriteString(w, deepNestingLink); err != nil {
		return
	}
	if !writeRepeated(r, w, closeDivs, len("</div>"), s.opts.NestingDepth) {
		return
	}
	_, _ = io.WriteString(w, "\n</body></html>\n")
}

// writeRepeated writes n copies of a tag whose length is tagLen, taking
// them from block (nestBlock copies) so that a write carries many at once.
// It reports whether everything was written.
func writeRepeated(r *http.Request, w io.Writer, block string, tagLen, n int) bool {
	for n > 0 {
		if r.Context().Err() != nil {
			return false
		}
		k := min(n, nestBlock)
		if _, err := io.WriteString(w, block[:k*tagLen]); err != nil {
			return false
		}
		n -= k
	}
	return true
}

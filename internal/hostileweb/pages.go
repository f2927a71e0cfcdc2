package hostileweb

import (
	"html"
	"net/http"
	"strconv"
	"strings"
)

// serveIndex links every route of the table, the silent listener included,
// so that a crawl started at "/" meets every trap.
func (s *Server) serveIndex(w http.ResponseWriter, r *http.Request) {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><meta charset=\"utf-8\"><title>hostile web</title></head><body>\n")
	b.WriteString("<h1>The hostile web</h1>\n<p>Every link below is either an ordinary page or a trap.</p>\n<ul>\n")
	for _, rt := range s.Routes() {
		if rt.Path == PathIndex {
			continue
		}
		href := rt.Path
		if href == "" {
			href = rt.URL
		}
		b.WriteString(`<li><a href="` + html.EscapeString(href) + `">` + html.EscapeString(rt.Name) +
			"</a>: " + html.EscapeString(rt.Trap) + "</li>\n")
	}
	b.WriteString("</ul>\n</body></html>\n")
	w.Header().Set("Content-Type", contentTypeHTML)
	_, _ = w.Write([]byte(b.String()))
}

// servePage serves the ordinary pages: some text, and links to their
// neighbours and the index, so that a crawl has work that must succeed.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	n, ok := parseIndex(r.PathValue("n"), NormalPages+1)
	if !ok || n == 0 {
		http.NotFound(w, r)
		return
	}
	var b strings.Builder
	b.WriteString("<p>Ordinary page number " + strconv.Itoa(n) + " of " + strconv.Itoa(NormalPages) +
		". It has plain text about crawling, indexing and ranking, which a crawler should extract.</p>\n<ul>\n")
	b.WriteString(`<li><a href="/">index</a></li>` + "\n")
	if n > 1 {
		b.WriteString(`<li><a href="` + pagePath(n-1) + `">previous</a></li>` + "\n")
	}
	if n < NormalPages {
		b.WriteString(`<li><a href="` + pagePath(n+1) + `">next</a></li>` + "\n")
	}
	b.WriteString("</ul>\n")
	writePage(w, "Page "+strconv.Itoa(n), b.String())
}

// writeSmallPage writes a complete page whose body is one paragraph of text.
func writeSmallPage(w http.ResponseWriter, title, text string) {
	writePage(w, title, "<p>"+html.EscapeString(text)+"</p>\n")
}

// writePage writes a complete UTF-8 page around bodyHTML, which must already
// be escaped.
func writePage(w http.ResponseWriter, title, bodyHTML string) {
	w.Header().Set("Content-Type", contentTypeHTML)
	_, _ = w.Write([]byte("<!doctype html><html><head><meta charset=\"utf-8\"><title>" +
		html.EscapeString(title) + "</title></head><body>\n<h1>" + html.EscapeString(title) + "</h1>\n" +
		bodyHTML + "</body></html>\n"))
}

package hostileweb

import "net/http"

// mux maps every path of the route table to its handler. Patterns with a
// method also answer HEAD, which costs nothing and is what some crawlers send
// first.
func (s *Server) mux() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", s.serveIndex)
	m.HandleFunc("GET /pages/{n}", s.servePage)
	m.HandleFunc("GET "+PathDrip, s.serveDrip)
	m.HandleFunc("GET "+PathEndless, s.serveEndless)
	m.HandleFunc("GET "+PathGzipBomb, s.serveGzipBomb)
	m.HandleFunc("GET /trap/redirect-loop/{step}", s.serveRedirectLoop)
	m.HandleFunc("GET /trap/redirect-chain/{hop}", s.serveRedirectChain)
	m.HandleFunc("GET "+PathManyLinks, s.serveManyLinks)
	m.HandleFunc("GET "+manyLinksItemPrefix+"{n}", s.serveManyLinksItem)
	m.HandleFunc("GET "+PathDeepNesting, s.serveDeepNesting)
	m.HandleFunc("GET "+PathInvalidUTF8, s.serveInvalidUTF8)
	m.HandleFunc("GET "+PathMislabelledCharset, s.serveMislabelledCharset)
	m.HandleFunc("GET /calendar/{year}/{month}/{day}", s.serveCalendar)
	m.HandleFunc("GET "+PathHugeHeaders, s.serveHugeHeaders)
	m.HandleFunc("GET "+PathConnectionReset, s.serveConnectionReset)
	m.HandleFunc("GET "+PathImageAsHTML, s.serveImageAsHTML)
	m.HandleFunc("GET "+PathRobots, s.serveRobots)
	return m
}

// Content types used by more than one handler.
const (
	contentTypeHTML = "text/html; charset=utf-8"
	contentTypeText = "text/plain; charset=utf-8"
)

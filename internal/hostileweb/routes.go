package hostileweb

import (
	"strconv"
)

// Reason names what a crawler should report when it meets a route. The
// values are stable strings so that a test can compare them with whatever the
// crawler under test produces.
type Reason string

// The reasons a crawler is expected to report, one per kind of trap.
const (
	// ReasonNone marks an ordinary page that a crawler should fetch and parse.
	ReasonNone Reason = "none"
	// ReasonTimeout: the response never completes in time (drip, silent listener).
	ReasonTimeout Reason = "timeout"
	// ReasonBodyTooLarge: the (decoded) body exceeds any sane size limit.
	ReasonBodyTooLarge Reason = "body-too-large"
	// ReasonRedirectLoop: a redirect leads back to a URL already visited.
	ReasonRedirectLoop Reason = "redirect-loop"
	// ReasonTooManyRedirects: the redirect chain is longer than any sane limit.
	ReasonTooManyRedirects Reason = "too-many-redirects"
	// ReasonTooManyLinks: one page carries more links than a crawler should keep.
	ReasonTooManyLinks Reason = "too-many-links"
	// ReasonTooDeep: the HTML nests deeper than a parser should follow.
	ReasonTooDeep Reason = "too-deep"
	// ReasonInvalidEncoding: the body is not valid in its declared charset.
	ReasonInvalidEncoding Reason = "invalid-encoding"
	// ReasonCharsetMismatch: header, meta tag and body disagree on the charset.
	ReasonCharsetMismatch Reason = "charset-mismatch"
	// ReasonLinkTrap: every page links new URLs forever; only a depth or URL
	// budget ends the crawl.
	ReasonLinkTrap Reason = "link-trap"
	// ReasonHeaderTooLarge: the response header exceeds any sane size limit.
	ReasonHeaderTooLarge Reason = "header-too-large"
	// ReasonConnectionReset: the connection is reset before the body ends.
	ReasonConnectionReset Reason = "connection-reset"
	// ReasonContentType: the response is not HTML whatever its path says.
	ReasonContentType Reason = "content-type"
	// ReasonBadRobots: robots.txt is garbage and must not crash or block the crawler.
	ReasonBadRobots Reason = "bad-robots"
)

// Paths of the routes served on [Server.URL]. Each is where a crawler enters
// the trap; the trap may lead on to further paths under the same prefix.
const (
	PathIndex              = "/"
	PathDrip               = "/trap/drip"
	PathEndless            = "/trap/endless"
	PathGzipBomb           = "/trap/gzip-bomb"
	PathRedirectLoop       = "/trap/redirect-loop/a"
	PathRedirectChain      = "/trap/redirect-chain/0"
	PathManyLinks          = "/trap/many-links"
	PathDeepNesting        = "/trap/deep-nesting"
	PathInvalidUTF8        = "/trap/invalid-utf8"
	PathMislabelledCharset = "/trap/mislabelled-charset"
	PathCalendar           = "/calendar/2026/11/22"
	PathHugeHeaders        = "/trap/huge-headers"
	PathConnectionReset    = "/trap/connection-reset"
	PathImageAsHTML        = "/trap/image.html"
	PathRobots             = "/robots.txt"
)

// NormalPages is how many ordinary pages the server has, at /pages/1 to
// /pages/NormalPages.
const NormalPages = 5

// Route describes one entry of the route table.
type Route struct {
	// Name is a short stable identifier, usable as a subtest name.
	Name string
	// Path is the path on [Server.URL]; it is empty for the silent listener,
	// which is not an HTTP server.
	Path string
	// URL is the absolute URL to fetch.
	URL string
	// Reason is what a crawler should report after fetching URL.
	Reason Reason
	// Trap says what the server does, for failure messages and documentation.
	Trap string
}

// Routes returns the route table: the index, the ordinary pages and every
// trap, in a fixed order, with absolute URLs for this server.
func (s *Server) Routes() []Route {
	o := s.opts
	routes := []Route{
		{"index", PathIndex, "", ReasonNone, "index page linking every route"},
	}
	for i := 1; i <= NormalPages; i++ {
		n := strconv.Itoa(i)
		routes = append(routes, Route{"page-" + n, pagePath(i), "", ReasonNone, "ordinary page"})
	}
	routes = append(routes,
		Route{"drip", PathDrip, "", ReasonTimeout,
			"200, then one body byte every " + o.DripInterval.String() + ", forever"},
		Route{"endless", PathEndless, "", ReasonBodyTooLarge,
			"200 with a chunked body that never ends"},
		Route{"gzip-bomb", PathGzipBomb, "", ReasonBodyTooLarge,
			"Content-Encoding: gzip, inflating to " + strconv.FormatInt(o.GzipBombSize, 10) + " bytes"},
		Route{"redirect-loop", PathRedirectLoop, "", ReasonRedirectLoop,
			"302 to " + redirectLoopB + ", which redirects back"},
		Route{"redirect-chain", PathRedirectChain, "", ReasonTooManyRedirects,
			strconv.Itoa(o.RedirectHops) + " hops of 302 before a 200"},
		Route{"many-links", PathManyLinks, "", ReasonTooManyLinks,
			"one page with " + strconv.Itoa(o.ManyLinks) + " distinct links"},
		Route{"deep-nesting", PathDeepNesting, "", ReasonTooDeep,
			"<div> elements nested " + strconv.Itoa(o.NestingDepth) + " levels deep"},
		Route{"invalid-utf8", PathInvalidUTF8, "", ReasonInvalidEncoding,
			"declared UTF-8, body holds invalid UTF-8 sequences"},
		Route{"mislabelled-charset", PathMislabelledCharset, "", ReasonCharsetMismatch,
			"header declares ISO-8859-1; meta tag and body are UTF-8"},
		Route{"calendar", PathCalendar, "", ReasonLinkTrap,
			"every day links the next day and the next month, forever"},
		Route{"huge-headers", PathHugeHeaders, "", ReasonHeaderTooLarge,
			strconv.Itoa(o.HeaderBytes) + " bytes of response header lines"},
		Route{"connection-reset", PathConnectionReset, "", ReasonConnectionReset,
			"partial body, then TCP reset before the declared length"},
		Route{"image-as-html", PathImageAsHTML, "", ReasonContentType,
			"200 with Content-Type image/png on an .html path"},
		Route{"robots", PathRobots, "", ReasonBadRobots,
			strconv.Itoa(o.RobotsBytes) + " bytes of seeded random garbage"},
	)
	for i := range routes {
		routes[i].URL = s.URL() + routes[i].Path
	}
	routes = append(routes, Route{"silent", "", s.SilentURL(), ReasonTimeout,
		"accepts the TCP connection and never answers"})
	return routes
}

func pagePath(i int) string { return "/pages/" + strconv.Itoa(i) }

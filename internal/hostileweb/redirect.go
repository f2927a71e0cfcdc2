package hostileweb

import (
	"net/http"
	"strconv"
)

// redirectLoopB is the second step of the redirect loop, which sends the
// client back to PathRedirectLoop.
const redirectLoopB = "/trap/redirect-loop/b"

// serveRedirectLoop bounces between two URLs forever. A crawler that only
// counts hops eventually gives up with "too many redirects"; one that
// remembers the URLs of the chain sees the loop on the second hop.
func (s *Server) serveRedirectLoop(w http.ResponseWriter, r *http.Request) {
	switch r.PathValue("step") {
	case "a":
		http.Redirect(w, r, redirectLoopB, http.StatusFound)
	case "b":
		http.Redirect(w, r, PathRedirectLoop, http.StatusFound)
	default:
		http.NotFound(w, r)
	}
}

// redirectChainPath is the path of hop n of the chain.
func redirectChainPath(n int) string { return "/trap/redirect-chain/" + strconv.Itoa(n) }

// serveRedirectChain redirects hop n to hop n+1 until RedirectHops, where
// a real page waits. Every URL is distinct, so only a hop limit stops a
// crawler before it gets there.
func (s *Server) serveRedirectChain(w http.ResponseWriter, r *http.Request) {
	n, ok := parseIndex(r.PathValue("hop"), s.opts.RedirectHops+1)
	switch {
	case !ok:
		http.NotFound(w, r)
	case n < s.opts.RedirectHops:
		http.Redirect(w, r, redirectChainPath(n+1), http.StatusFound)
	default:
		writeSmallPage(w, "end of the redirect chain",
			"You followed "+strconv.Itoa(n)+" redirects to get here.")
	}
}

// parseIndex parses s as a decimal in [0, limit), accepting only the
// canonical spelling so that every resource has exactly one URL.
func parseIndex(s string, limit int) (int, bool) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n >= limit || strconv.Itoa(n) != s {
		return 0, false
	}
	return n, true
}

package robots

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/jimsmart/grobotstxt"
)

// Rules are the directives of one robots.txt that apply to one robot name,
// compiled once. A Rules value is immutable and safe for concurrent use.
type Rules struct {
	// disallowAll and allowAll short-circuit matching for the outcomes of
	// an unreachable or unavailable robots.txt.
	disallowAll bool
	allowAll    bool

	// specificSeen is true when some group named our robot; then only the
	// specific rules apply, even if there are none (RFC 9309 2.2.1).
	specificSeen bool
	specific     []rule
	global       []rule

	specificDelay, globalDelay time.Duration // -1 when absent

	// sitemaps are the file's Sitemap lines, which belong to no group.
	sitemaps []string
}

// maxSitemaps bounds the Sitemap lines kept from one file: a robots.txt
// of 500 KiB could otherwise name tens of thousands.
const maxSitemaps = 100

// rule is one Allow or Disallow line of a group that applies to us.
type rule struct {
	allow   bool
	pattern string
	// alt is grobotstxt's fallback for Allow patterns ending in
	// "/index.htm(l)": it also allows the directory itself ("/dir/$").
	alt string
}

// Parse compiles robots.txt body for the robot product token name (such
// as "linksrus"; matched case-insensitively against User-agent lines). It
// keeps only the groups that apply to name, so the result stays small
// however large the file is.
func Parse(body []byte, name string) (r *Rules) {
	rec := &recorder{name: name, rules: &Rules{specificDelay: -1, globalDelay: -1}}
	defer func() {
		// grobotstxt has internal panics that its authors believe are
		// unreachable; should one fire, err on the side of not crawling.
		if recover() != nil {
			r = &Rules{disallowAll: true, specificDelay: -1, globalDelay: -1}
		}
	}()
	grobotstxt.Parse(string(body), rec)
	return rec.rules
}

// Allowed reports whether the URL path (escaped path plus "?query" if any,
// starting with "/") may be fetched. It mirrors grobotstxt's RobotsMatcher
// decision: the longest matching pattern wins, Allow wins ties.
func (r *Rules) Allowed(path string) bool {
	switch {
	case r.disallowAll:
		return false
	case r.allowAll:
		return true
	}
	if path == "" || path[0] != '/' {
		path = "/" + path
	}
	path = decodeUnreserved(path)
	if a, d := priorities(r.specific, path); a > 0 || d > 0 {
		return a >= d
	}
	if r.specificSeen {
		return true
	}
	if a, d := priorities(r.global, path); a > 0 || d > 0 {
		return a >= d
	}
	return true // only empty patterns matched, which mean nothing
}

// AllowedURL reports whether the rules allow u: its escaped path and query
// are matched, as RFC 9309 requires.
func (r *Rules) AllowedURL(u *url.URL) bool { return r.Allowed(requestPath(u)) }

// requestPath returns the part of u that robots.txt rules match: the
// escaped path (at least "/") and the query.
func requestPath(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	return p
}

// CrawlDelay returns the Crawl-delay of the group that applies to the
// robot, and whether there was one. It is not capped here: a caller caps
// it (package engine's Options.MaxCrawlDelay).
func (r *Rules) CrawlDelay() (time.Duration, bool) {
	d := r.globalDelay
	if r.specificSeen {
		d = r.specificDelay
	}
	return max(d, 0), d >= 0
}

// Sitemaps returns the URLs of the file's Sitemap lines, in order, without
// duplicates and at most 100, as written (they are meant to be absolute;
// checking them is the caller's business). It is empty for a file that
// was not available.
func (r *Rules) Sitemaps() []string { return slices.Clone(r.sitemaps) }

// priorities returns the length of the longest matching Allow and
// Disallow pattern (-1 for none), grobotstxt's match priorities.
func priorities(rules []rule, path string) (allow, disallow int) {
	allow, disallow = -1, -1
	for _, ru := range rules {
		if ru.allow {
			p := matchPriority(path, ru.pattern)
			if p < 0 && ru.alt != "" {
				p = matchPriority(path, ru.alt)
			}
			allow = max(allow, p)
		} else {
			disallow = max(disallow, matchPriority(path, ru.pattern))
		}
	}
	return allow, disallow
}

// matchPriority is grobotstxt.LongestMatchStrategy's priority (pattern
// length if it matches, else -1). Patterns without '*' (most of them) are
// matched with a prefix or equality test, which is what grobotstxt.Matches
// computes for them, without its per-call allocation.
func matchPriority(path, pattern string) int {
	var ok bool
	switch {
	case strings.IndexByte(pattern, '*') >= 0:
		ok = grobotstxt.Matches(path, pattern)
	case strings.HasSuffix(pattern, "$"):
		ok = path == pattern[:len(pattern)-1]
	default:
		ok = strings.HasPrefix(path, pattern)
	}
	if ok {
		return len(pattern)
	}
	return -1
}

// recorder is a grobotstxt.ParseHandler that tracks group membership
// exactly as grobotstxt.RobotsMatcher does, but records the applicable
// rules instead of matching one path, so the file is parsed only once.
type recorder struct {
	name  string
	rules *Rules

	seenGlobal, seenSpecific, seenSeparator bool
}

var _ grobotstxt.ParseHandler = (*recorder)(nil)

func (h *recorder) HandleRobotsStart() {}
func (h *recorder) HandleRobotsEnd()   {}

// HandleSitemap keeps the file's Sitemap lines, whatever group they are
// in: they are not part of any (RFC 9309 2.2.4).
func (h *recorder) HandleSitemap(_ int, v string) {
	v = strings.TrimSpace(v)
	if v != "" && len(h.rules.sitemaps) < maxSitemaps && !slices.Contains(h.rules.sitemaps, v) {
		h.rules.sitemaps = append(h.rules.sitemaps, v)
	}
}
func (h *recorder) HandleAllow(_ int, v string)    { h.add(true, v) }
func (h *recorder) HandleDisallow(_ int, v string) { h.add(false, v) }

func (h *recorder) HandleUserAgent(_ int, agent string) {
	if h.seenSeparator { // a rule line ended the previous group
		h.seenGlobal, h.seenSpecific, h.seenSeparator = false, false, false
	}
	// Like Google, "* anything" still counts as the global agent.
	if len(agent) >= 1 && agent[0] == '*' && (len(agent) == 1 || isSpace(agent[1])) {
		h.seenGlobal = true
		return
	}
	if strings.EqualFold(productToken(agent), h.name) {
		h.seenSpecific = true
		h.rules.specificSeen = true
	}
}

func (h *recorder) HandleUnknownAction(_ int, action, value string) {
	if !strings.EqualFold(action, "crawl-delay") {
		return
	}
	d, ok := parseDelay(value)
	if !ok {
		return
	}
	// The first Crawl-delay of a group wins; later ones are ignored.
	switch {
	case h.seenSpecific:
		if h.rules.specificDelay < 0 {
			h.rules.specificDelay = d
		}
	case h.seenGlobal:
		if h.rules.globalDelay < 0 {
			h.rules.globalDelay = d
		}
	}
}

func (h *recorder) add(allow bool, pattern string) {
	if !h.seenGlobal && !h.seenSpecific {
		return
	}
	h.seenSeparator = true
	ru := rule{allow: allow, pattern: decodeUnreserved(pattern)}
	if allow {
		if slash := strings.LastIndexByte(ru.pattern, '/'); slash >= 0 &&
			strings.HasPrefix(ru.pattern[slash:], "/index.htm") {
			ru.alt = ru.pattern[:slash+1] + "$"
		}
	}
	if h.seenSpecific {
		h.rules.specific = append(h.rules.specific, ru)
	} else {
		h.rules.global = append(h.rules.global, ru)
	}
}

// productToken extracts the matchable start of a User-agent value, as
// grobotstxt does: "Googlebot/2.1" becomes "Googlebot".
func productToken(agent string) string {
	for i := 0; i < len(agent); i++ {
		c := agent[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("~#$%'*+-.^_`|", c) >= 0) {
			return agent[:i]
		}
	}
	return agent
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == 0x85 || c == 0xA0
}

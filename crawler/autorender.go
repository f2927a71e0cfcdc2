package crawler

import (
	"bytes"
	"math/bits"
	"net/url"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/net/html"
)

// How RenderAuto decides. A page is worth rendering when rendering reaches
// URLs or text that the HTML as served does not hold. Nothing can run in
// a page without a script, so those never are; of the others, the static
// HTML tells some (an empty mount point, a <noscript> asking for
// JavaScript, next to no text), and for the rest what rendering yielded
// on the host's pages so far decides. The first probeRenders scripted
// pages of a host are rendered to find out, and its 8th, 16th, 32nd...
// scripted page to find out again (the first pages of a site are not all
// of it). Then a host's scripted pages are rendered while at least half
// of its recent renders yielded, only its shells while fewer did, and
// none while none did, its strong signals notwithstanding (they were
// wrong there); a host none of whose renders ever yielded is measured
// again maxBarrenExplores times only.
const (
	// probeRenders is how many scripted pages of a host are rendered
	// before its yield decides.
	probeRenders = 3
	// maxBarrenExplores is how many more of a host's pages are rendered
	// (its 8th, 16th and 32nd scripted pages) when none of its renders
	// yielded: six renders in all on a host where rendering finds
	// nothing, 2% of its first 300 pages.
	maxBarrenExplores = 3
	// yieldWindow is how many of a host's last renders its yield is
	// measured on, so that a host that stops yielding stops being
	// rendered.
	yieldWindow = 16
	// sparseText is the visible text, in bytes, under which a scripted
	// page is taken for a shell its scripts fill.
	sparseText = 256
	// newWordsYield is how many words a render must add to the page's
	// text (distinct, not in the static text) to count as yielding, when
	// it finds no new link: a date or a button label is not content.
	newWordsYield = 20
	// maxAutoHosts bounds the hosts whose yield is kept.
	maxAutoHosts = 4096
)

// pageSignals is what the static HTML says of a page's need to be rendered.
type pageSignals struct {
	scripts    int  // script elements
	textBytes  int  // non-space bytes of text outside tags, scripts and styles
	noscriptJS bool // a <noscript> whose text asks for JavaScript
	mountPoint bool // an empty element a known framework mounts its application in
}

// strong reports whether the HTML alone says the page is built by its
// scripts.
func (s pageSignals) strong() bool {
	return s.scripts > 0 && (s.noscriptJS || s.mountPoint || s.textBytes < sparseText)
}

// autoRender decides, for RenderAuto, which pages are rendered; it learns
// each host's yield from the renders. It is safe for concurrent use.
type autoRender struct {
	mu    sync.Mutex
	hosts map[string]*hostYield
}

// hostYield is what rendering a host's pages has yielded.
type hostYield struct {
	renders  int    // measured renders, up to yieldWindow
	yielded  uint32 // the last renders' yields, a bit each, newest lowest
	probing  int    // renders under way that were asked for to measure the host
	scripted int    // the host's pages with scripts seen
	explored int    // measures made after the probes while none yielded
}

func newAutoRender() *autoRender {
	return &autoRender{hosts: make(map[string]*hostYield)}
}

// wants reports whether a page of host with signals s is rendered, and
// whether as one of the host's probes (to be ended by learn or forget).
func (a *autoRender) wants(host string, s pageSignals) (render, probe bool) {
	if s.scripts == 0 {
		return false, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	h := a.hosts[host]
	if h == nil {
		if len(a.hosts) >= maxAutoHosts {
			for k := range a.hosts { // forget one: its pages will be measured again
				delete(a.hosts, k)
				break
			}
		}
		h = &hostYield{}
		a.hosts[host] = h
	}
	h.scripted++
	if h.renders+h.probing < probeRenders {
		h.probing++
		return true, true
	}
	if h.renders < probeRenders {
		return s.strong(), false // the probes are under way
	}
	// The first pages of a site are not all of it: its 8th, 16th, 32nd...
	// scripted page is rendered to measure it again (a few times only
	// while none ever yielded).
	explore := h.scripted >= 8 && h.scripted&(h.scripted-1) == 0
	yielded := bits.OnesCount32(h.yielded)
	switch {
	case yielded == 0 && explore && h.explored < maxBarrenExplores:
		h.explored++
		h.probing++
		return true, true
	case yielded == 0:
		return false, false
	case 2*yielded >= h.renders:
		return true, false
	case explore:
		h.probing++
		return true, true
	default:
		return s.strong(), false
	}
}

// learn records whether rendering the page at base, whose static HTML is
// static, yielded a link to its host or text its HTML does not hold.
func (a *autoRender) learn(base *url.URL, static []byte, r *Rendered, probe bool) {
	before := readPage(static, base)
	after := readPage(r.HTML, base)
	yielded := false
	for _, m := range r.Moved {
		after.links[m] = true
	}
	for l := range after.links {
		if !before.links[l] {
			if u, err := url.Parse(l); err == nil && strings.EqualFold(u.Host, base.Host) {
				yielded = true
				break
			}
		}
	}
	if !yielded {
		n := 0
		for w := range after.words {
			if !before.words[w] {
				n++
			}
		}
		yielded = n >= newWordsYield
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	h := a.hosts[base.Host]
	if h == nil {
		return // forgotten meanwhile
	}
	if probe && h.probing > 0 {
		h.probing--
	}
	h.yielded <<= 1
	if yielded {
		h.yielded |= 1
	}
	h.yielded &= 1<<yieldWindow - 1
	h.renders = min(h.renders+1, yieldWindow)
}

// forget ends a probe that failed: it measured nothing.
func (a *autoRender) forget(host string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if h := a.hosts[host]; h != nil && h.probing > 0 {
		h.probing--
	}
}

// readSignals reads s's signals from an HTML page, without the tokenizer:
// it runs on every page of a crawl in RenderAuto, most of which it lets
// by, so it must cost next to nothing beside the extraction. A page with
// no script tag at all is told apart first, and its other signals are
// not read: nothing can run in it.
func readSignals(doc []byte) pageSignals {
	var s pageSignals
	if !mayHaveScript(doc) {
		return s
	}
	for i := 0; i < len(doc); {
		j := bytes.IndexByte(doc[i:], '<')
		if j < 0 {
			s.textBytes += nonSpace(doc[i:])
			break
		}
		s.textBytes += nonSpace(doc[i : i+j])
		i += j
		if bytes.HasPrefix(doc[i:], []byte("<!--")) {
			end := bytes.Index(doc[i+4:], []byte("-->"))
			if end < 0 {
				break
			}
			i += 4 + end + 3
			continue
		}
		end := bytes.IndexByte(doc[i:], '>')
		if end < 0 {
			break
		}
		tag := doc[i+1 : i+end]
		i += end + 1
		name := tagName(tag)
		switch {
		case equalFold(name, "script"), equalFold(name, "style"), equalFold(name, "noscript"):
			close := indexCloseTag(doc[i:], name)
			if close < 0 {
				close = len(doc) - i
			}
			switch {
			case equalFold(name, "script") && runs(tag):
				s.scripts++
			case equalFold(name, "noscript"):
				if indexFold(doc[i:i+close], "javascript") >= 0 {
					s.noscriptJS = true
				}
			}
			i += close
		case !s.mountPoint && container(name) && mountsApp(name, tag) && emptyElement(doc[i:]):
			s.mountPoint = true
		}
	}
	return s
}

// runs reports whether a script start tag's script is one the browser
// runs: not data (JSON-LD, templates).
func runs(tag []byte) bool {
	switch t := strings.ToLower(strings.TrimSpace(attrValue(tag, "type"))); {
	case t == "", t == "module", strings.Contains(t, "javascript"), strings.Contains(t, "ecmascript"):
		return true
	}
	return false
}

// mayHaveScript reports whether doc holds "<script" in any case: false
// says for certain that the page has no script element.
func mayHaveScript(doc []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(doc[i:], '<')
		if j < 0 {
			return false
		}
		i += j + 1
		if i+6 <= len(doc) && (doc[i]|0x20) == 's' && equalFold(doc[i:i+6], "script") {
			return true
		}
	}
}

// container reports whether a tag name is one an application is mounted
// in (Angular's own element aside): checking only those keeps the
// attribute scans off the page's every anchor and cell.
func container(name []byte) bool {
	switch {
	case equalFold(name, "div"), equalFold(name, "main"), equalFold(name, "section"),
		equalFold(name, "body"), equalFold(name, "html"), equalFold(name, "app-root"), equalFold(name, "span"):
		return true
	}
	return false
}

// mountsApp reports whether a start tag is one frameworks mount their
// application in: an element with the id React, Vue, Next.js, Nuxt,
// Gatsby and the like put in their shells, or Angular's root.
func mountsApp(name, tag []byte) bool {
	if equalFold(name, "app-root") {
		return true
	}
	if indexFold(tag, "ng-app") >= 0 || indexFold(tag, "data-reactroot") >= 0 {
		return true
	}
	id := attrValue(tag, "id")
	switch strings.ToLower(id) {
	case "app", "root", "__next", "__nuxt", "___gatsby", "svelte", "main-app":
		return true
	}
	return false
}

// emptyElement reports whether rest, what follows a start tag, closes the
// element with nothing but space in it.
func emptyElement(rest []byte) bool {
	rest = bytes.TrimLeftFunc(rest, unicode.IsSpace)
	return bytes.HasPrefix(rest, []byte("</"))
}

// tagName returns the name of a tag's inside ("div id=app" → "div"); a
// closing or special tag's is empty or starts with '/' or '!'.
func tagName(tag []byte) []byte {
	end := bytes.IndexFunc(tag, func(r rune) bool { return unicode.IsSpace(r) || r == '/' })
	if end < 0 {
		end = len(tag)
	}
	return tag[:end]
}

// attrValue returns the value of attribute key in a start tag's inside,
// quoted or not, or "".
func attrValue(tag []byte, key string) string {
	for i := 0; ; {
		j := indexFold(tag[i:], key)
		if j < 0 {
			return ""
		}
		at := i + j
		i = at + len(key)
		if at > 0 && !unicode.IsSpace(rune(tag[at-1])) {
			continue // part of another attribute's name or value
		}
		rest := bytes.TrimLeftFunc(tag[i:], unicode.IsSpace)
		if !bytes.HasPrefix(rest, []byte("=")) {
			continue
		}
		rest = bytes.TrimLeftFunc(rest[1:], unicode.IsSpace)
		if len(rest) > 0 && (rest[0] == '"' || rest[0] == '\'') {
			if end := bytes.IndexByte(rest[1:], rest[0]); end >= 0 {
				return string(rest[1 : 1+end])
			}
			return ""
		}
		end := bytes.IndexFunc(rest, unicode.IsSpace)
		if end < 0 {
			end = len(rest)
		}
		return string(rest[:end])
	}
}

// indexCloseTag returns the index in b of the closing tag of element
// name, or -1.
func indexCloseTag(b, name []byte) int {
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte("</"))
		if j < 0 {
			return -1
		}
		at := i + j
		if rest := b[at+2:]; len(rest) >= len(name) && equalFold(rest[:len(name)], string(name)) {
			return at
		}
		i = at + 2
	}
}

// indexFold is bytes.Index for an ASCII lower-case needle, ignoring the
// case of b.
func indexFold(b []byte, needle string) int {
	for i := 0; i+len(needle) <= len(b); i++ {
		if equalFold(b[i:i+len(needle)], needle) {
			return i
		}
	}
	return -1
}

// equalFold reports whether b is s, ignoring ASCII case only, as HTML
// compares tag and attribute names: bytes.EqualFold folds Unicode too,
// and would take "<ſcript>" (U+017F) for a script, which no browser runs.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		d := s[i]
		if 'A' <= d && d <= 'Z' {
			d += 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}

// nonSpace counts the bytes of b that are not ASCII space.
func nonSpace(b []byte) int {
	n := 0
	for _, c := range b {
		if c > ' ' {
			n++
		}
	}
	return n
}

// pageRead is a page's links (absolute) and words (lower case), to tell
// what a render added.
type pageRead struct {
	links map[string]bool
	words map[string]bool
}

// readPage reads doc's links, resolved against base, and the words of
// its text outside scripts and styles.
func readPage(doc []byte, base *url.URL) pageRead {
	r := pageRead{links: make(map[string]bool), words: make(map[string]bool)}
	z := html.NewTokenizer(bytes.NewReader(doc))
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return r
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "script", "style", "template":
				skip++
			case "a", "area":
				for hasAttr {
					var k, v []byte
					k, v, hasAttr = z.TagAttr()
					if string(k) == "href" {
						if u, err := base.Parse(strings.TrimSpace(string(v))); err == nil {
							u.Fragment, u.RawFragment = "", ""
							r.links[u.String()] = true
						}
					}
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style", "template":
				if skip > 0 {
					skip--
				}
			}
		case html.TextToken:
			if skip == 0 {
				for _, w := range strings.FieldsFunc(string(z.Text()), func(r rune) bool {
					return !unicode.IsLetter(r) && !unicode.IsNumber(r)
				}) {
					r.words[strings.ToLower(w)] = true
				}
			}
		}
	}
}

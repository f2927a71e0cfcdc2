package crawler

import "golang.org/x/net/html/atom"

// A page's chrome is what it shares with the rest of its site rather than
// says itself: navigation, the site's header and footer, sidebars. The text
// stage keeps it out of the page's text (so out of the index and of
// snippets), by structure, the way reader modes find a page's content:
//
//   - <nav> and <aside>;
//   - <header> and <footer> outside <article>, <main> and <section> (inside
//     them they head or close that part of the content);
//   - an element whose ARIA role is navigation, banner, contentinfo,
//     complementary or search;
//   - an element whose class or id names navigation as sites write it
//     (a word of it, split at anything but a letter, that begins or ends
//     with "nav", or is navigation, breadcrumb(s), sidebar, menu or
//     footer, as in "navbar", "navheader", "sidenav", "site-footer"),
//     unless it is an element that may end without an end tag
//     (endsWithoutEndTag).
//
// Text inside such an element goes to the chrome, and the page's text is
// the rest, unless the rest is empty (a page that is all navigation, or
// whose chrome element was never closed, keeps all its text).
//
// chromeTag reports whether the start tag whose raw text is raw, of atom a
// (0 for one the text scan does not know), opens chrome, sectioning being
// the depth of <article>, <main> and <section> around it.
func chromeTag(a atom.Atom, raw []byte, sectioning int) bool {
	switch a {
	case atom.Nav, atom.Aside:
		return true
	case atom.Header, atom.Footer:
		if sectioning == 0 {
			return true
		}
	}
	return rawChromeAttrs(raw)
}

// endsWithoutEndTag reports whether an element of this (lower-case) name
// may end without its end tag: void elements (img, input, ...) never have
// one, and the HTML parser ends p, li, table rows and cells, options and
// the like at the next of their kind or at their parent's end. Counting
// its tags cannot tell where such an element ends, so it opens no chrome:
// an <img class="nav-logo"> would otherwise take the rest of the page with
// it.
func endsWithoutEndTag(name string) bool {
	switch name {
	case "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
		"p", "li", "dt", "dd", "rt", "rp", "optgroup", "option", "colgroup", "caption",
		"thead", "tbody", "tfoot", "tr", "td", "th", "html", "head", "body":
		return true
	}
	return false
}

// rawChromeAttrs reports whether the attributes of raw, a start tag's raw
// text, mark it as chrome (see chromeTag). Attributes are split as the
// tokenizer splits them (rawLinkAttrs, rawAttrValue; FuzzRawChromeAttrs
// holds it to TagAttr); a tag too broken to read is not chrome.
func rawChromeAttrs(raw []byte) bool {
	// Of a repeated attribute the first counts, as in the browser's DOM.
	var roleSeen, classSeen, idSeen bool
	for i := rawAttrsStart(raw); ; {
		key, value, next, status := nextRawAttr(raw, i)
		if status != attrRead {
			return false
		}
		i = next
		switch {
		case !roleSeen && equalLower(key, "role"):
			roleSeen = true
			if chromeRole(value) {
				return true
			}
		case !classSeen && equalLower(key, "class"):
			classSeen = true
			if chromeName(value) {
				return true
			}
		case !idSeen && equalLower(key, "id"):
			idSeen = true
			if chromeName(value) {
				return true
			}
		}
	}
}

// chromeRole reports whether an ARIA role attribute's value (a list of
// tokens, the first one the browser supports applying) names a landmark of
// the site rather than of the page.
func chromeRole(value []byte) bool {
	w, _ := nextWord(value, 0, isRoleByte) // the first token is the role
	return equalLower(w, "navigation") || equalLower(w, "banner") || equalLower(w, "contentinfo") ||
		equalLower(w, "complementary") || equalLower(w, "search")
}

// chromeName reports whether a class or id value names navigation (see
// chromeTag).
func chromeName(value []byte) bool {
	for i := 0; i < len(value); {
		var w []byte
		w, i = nextWord(value, i, isASCIILetter)
		if len(w) >= 3 && (equalLower(w[:3], "nav") || equalLower(w[len(w)-3:], "nav")) {
			return true
		}
		if equalLower(w, "navigation") || equalLower(w, "breadcrumb") || equalLower(w, "breadcrumbs") ||
			equalLower(w, "sidebar") || equalLower(w, "menu") || equalLower(w, "footer") {
			return true
		}
	}
	return false
}

// nextWord returns the first run of bytes of b from i on that in accepts
// (empty if none), and the index after it.
func nextWord(b []byte, i int, in func(byte) bool) (word []byte, next int) {
	for i < len(b) && !in(b[i]) {
		i++
	}
	start := i
	for i < len(b) && in(b[i]) {
		i++
	}
	return b[start:i], i
}

func isASCIILetter(c byte) bool { return 'A' <= c&^0x20 && c&^0x20 <= 'Z' }

func isRoleByte(c byte) bool { return !isTagSpace(c) }

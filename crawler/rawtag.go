package crawler

import "bytes"

// This file reads what the link extractor needs straight from a start tag's
// raw text (html.Tokenizer.Raw), where the tokenizer's TagName and TagAttr
// would copy it: tags are classified by name, and the href and rel of
// links are read without rewriting. Each function follows the tokenizer's
// own rules (golang.org/x/net/html, readTag) and the fuzz tests in
// rawtag_test.go hold them to the tokenizer's answers.

// tagKind is the kind of tag the extractor reads attributes from.
type tagKind int

const (
	tagOther tagKind = iota
	tagLink          // <a> or <area>
	tagBase
	tagMeta
)

// rawTagName classifies the start tag whose raw text is raw ("<a href=...>"),
// reading the name where the tokenizer does: from after the '<' to the first
// space, '/' or '>'. Only ASCII letters fold, as in the tokenizer.
func rawTagName(raw []byte) tagKind {
	name := rawName(raw)
	if len(name) > 4 {
		return tagOther
	}
	switch {
	case equalLower(name, "a"), equalLower(name, "area"):
		return tagLink
	case equalLower(name, "base"):
		return tagBase
	case equalLower(name, "meta"):
		return tagMeta
	}
	return tagOther
}

// rawName returns the tag name of raw, a start tag as the tokenizer saw
// it ("<a href=x>"), as written (not lower-cased).
func rawName(raw []byte) []byte {
	if len(raw) < 2 {
		return nil
	}
	end := 1
	for end < len(raw) {
		c := raw[end]
		if c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '/' || c == '>' {
			break
		}
		end++
	}
	return raw[1:end]
}

// equalLower reports whether b equals the lower-case ASCII word want, with
// ASCII letters of b compared case-insensitively.
func equalLower(b []byte, want string) bool {
	if len(b) != len(want) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != want[i] {
			return false
		}
	}
	return true
}

// rawLinkAttrs is linkAttrs reading the raw text of the tag, for the common
// tag whose attributes need none of the rewriting TagAttr does (entities,
// NUL bytes, carriage returns): TagAttr copies every key and value it
// returns, which is most of the cost of a link-heavy page after the
// tokenizer's own. It splits attributes exactly as the tokenizer's readTag
// does, keeping the first of repeated names as the tokenizer does, and
// reports read false, leaving the tag to linkAttrs, for any tag it does not
// handle. FuzzRawLinkAttrs checks it against linkAttrs.
func rawLinkAttrs(raw []byte) (href, rel []byte, ok, read bool) {
	for _, c := range raw {
		if c == '&' || c == '\r' || c == 0 {
			return nil, nil, false, false
		}
	}
	relSeen := false
	for i := rawAttrsStart(raw); ; {
		key, value, next, status := nextRawAttr(raw, i)
		switch status {
		case attrsBroken:
			return nil, nil, false, false // not a complete tag: the tokenizer never yields one
		case attrsEnd:
			return href, rel, ok, true
		}
		i = next
		switch {
		case len(key) == 0:
		case !ok && equalLower(key, "href"):
			href, ok = value, true
		case !relSeen && equalLower(key, "rel"):
			rel, relSeen = value, true
		}
	}
}

// rawAttrsStart returns where the attributes of raw, a start tag's raw
// text, begin: after its name and the space that ends it.
func rawAttrsStart(raw []byte) int {
	n := len(raw)
	i := 1 // raw[0] is '<', raw[1] the tag name's first letter
	for i < n && !isTagSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++
	}
	if i < n && isTagSpace(raw[i]) {
		i++
	}
	return i
}

// The outcomes of nextRawAttr.
const (
	attrRead    = iota // an attribute was read
	attrsEnd           // the tag ended: no more attributes
	attrsBroken        // raw ended inside the tag
)

// nextRawAttr reads the attribute of raw that begins at or after i, split
// as the tokenizer's readTag splits it, and returns its name and value (as
// written) and where the next one begins; status says whether one was
// read, the tag ended, or raw ended first.
func nextRawAttr(raw []byte, i int) (key, value []byte, next, status int) {
	n := len(raw)
	for i < n && isTagSpace(raw[i]) {
		i++
	}
	if i >= n {
		return nil, nil, 0, attrsBroken
	}
	if raw[i] == '>' {
		return nil, nil, 0, attrsEnd
	}
	// The attribute name runs to a space, '/', '>' or '=', except that a
	// leading '=' belongs to it.
	kStart := i
	for ; ; i++ {
		if i >= n {
			return nil, nil, 0, attrsBroken
		}
		c := raw[i]
		if c == '=' && i == kStart {
			continue
		}
		if c == '=' || c == '/' || c == '>' || isTagSpace(c) {
			break
		}
	}
	vStart, vEnd, next, complete := rawAttrValue(raw, i)
	if !complete {
		return nil, nil, 0, attrsBroken
	}
	return raw[kStart:i], raw[vStart:vEnd], next, attrRead
}

// rawAttrValue reads the "=value" part, if any, of an attribute whose name
// ends at raw[i], as the tokenizer's readTagAttrVal does, and returns the
// value's span and where reading goes on; complete is false if raw ends
// first.
func rawAttrValue(raw []byte, i int) (vStart, vEnd, next int, complete bool) {
	n := len(raw)
	vStart, vEnd = i, i
	for i < n && isTagSpace(raw[i]) {
		i++
	}
	if i >= n {
		return 0, 0, 0, false
	}
	switch raw[i] {
	case '/': // consumed: a self-closing slash, or junk
		return vStart, vEnd, i + 1, true
	case '=':
		i++
	default: // no value
		return vStart, vEnd, i, true
	}
	for i < n && isTagSpace(raw[i]) {
		i++
	}
	if i >= n {
		return 0, 0, 0, false
	}
	switch q := raw[i]; q {
	case '>':
		return vStart, vEnd, i, true
	case '\'', '"':
		end := bytes.IndexByte(raw[i+1:], q)
		if end < 0 {
			return 0, 0, 0, false
		}
		return i + 1, i + 1 + end, i + 2 + end, true
	default:
		for j := i + 1; j < n; j++ {
			switch c := raw[j]; {
			case isTagSpace(c):
				return i, j, j + 1, true
			case c == '>':
				return i, j, j, true
			}
		}
		return 0, 0, 0, false
	}
}

// isTagSpace reports whether c is whitespace inside a tag, to the tokenizer.
func isTagSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f'
}

// rawTextTags are the elements whose start tag makes the HTML tokenizer
// read what follows as raw text, up to the matching end tag.
var rawTextTags = []string{"script", "style", "textarea", "title", "iframe", "noembed", "noframes", "noscript", "plaintext", "xmp"}

// selfClosedRawText reports whether raw, a self-closing tag, is one of the
// raw-text elements. The tokenizer reads what follows such a tag as the
// element's raw text, as text/html requires; but valid XHTML, which the
// crawler accepts, writes empty elements self-closed (<script src="a.js"/>),
// and reading the rest of the page as script would hide its text and links
// and leak markup into the text. The extractors then call
// NextIsNotRawText, as an XHTML parser would.
func selfClosedRawText(raw []byte) bool {
	name := rawName(raw)
	for _, t := range rawTextTags {
		if equalLower(name, t) {
			return true
		}
	}
	return false
}

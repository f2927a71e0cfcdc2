package crawler

import (
	"html"
	"net/http"
	"strings"
)

// rawLang returns the language tag of the lang attribute of raw, a start
// tag's raw text, or "" when it has none or it is not a language tag.
func rawLang(raw []byte) string {
	for i := rawAttrsStart(raw); ; {
		key, value, next, status := nextRawAttr(raw, i)
		if status != attrRead {
			return ""
		}
		i = next
		if equalLower(key, "lang") {
			return languageTag(html.UnescapeString(string(value)))
		}
	}
}

// contentLanguage returns the first language of a response's
// Content-Language ("de-DE, en-CA": the text is for both; the first is
// the better guess of the words it holds), or "".
func contentLanguage(h http.Header) string {
	first, _, _ := strings.Cut(h.Get("Content-Language"), ",")
	return languageTag(first)
}

// languageTag returns s, trimmed, if it has the shape of a BCP 47
// language tag (subtags of letters and digits joined by hyphens, at most
// 35 bytes, as RFC 5646 bounds the common ones), else "": a page cannot
// hand the index an arbitrary string as its language.
func languageTag(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 35 || isTagSep(s[0]) || isTagSep(s[len(s)-1]) {
		return ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		// en_US, as some servers write it, is taken as en-US.
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || isTagSep(c) && !isTagSep(s[i-1])) {
			return ""
		}
	}
	return s
}

func isTagSep(c byte) bool { return c == '-' || c == '_' }

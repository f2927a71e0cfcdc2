package crawler

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/microcosm-cc/bluemonday"
	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/linksrus/linksrus/pipeline"
)

// TextExtractor is the text extraction stage: it fills in Payload.Title
// and TextContent with plain text fit for a full-text index. Markup is
// removed by bluemonday's strict policy, which also drops the contents of
// script, style, noscript, iframe, object and title elements; entities are
// then decoded, whitespace runs collapsed to one space, and invalid UTF-8
// replaced. The title is the first <title>'s text, treated the same way.
type TextExtractor struct {
	policy *bluemonday.Policy
}

// NewTextExtractor returns the text extraction stage.
func NewTextExtractor() *TextExtractor {
	// A bluemonday policy is safe for concurrent use once built, so one
	// serves every worker.
	return &TextExtractor{policy: bluemonday.StrictPolicy().AddSpaceWhenStrippingTag(true)}
}

var sanitizedPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Process implements pipeline.Processor.
func (t *TextExtractor) Process(_ context.Context, pp pipeline.Payload) (pipeline.Payload, error) {
	p, err := asPayload(pp)
	if err != nil {
		return nil, fmt.Errorf("crawler: extract text: %w", err)
	}
	p.Title = extractTitle(p.Body)

	buf := sanitizedPool.Get().(*bytes.Buffer)
	defer sanitizedPool.Put(buf)
	buf.Reset()
	if err := t.policy.SanitizeReaderToWriter(bytes.NewReader(p.Body), buf); err != nil {
		return nil, fmt.Errorf("crawler: extract text of %q: %w", p.URL, err)
	}
	p.TextContent = cleanTextBytes(buf.Bytes(), true)
	return p, nil
}

// extractTitle returns the text of the document's first <title>, looking
// no further than the start of <body>.
func extractTitle(body []byte) string {
	z := xhtml.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return ""
		case xhtml.StartTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Title:
				// The tokenizer reads <title> as raw text: one text token,
				// entities already decoded.
				if z.Next() == xhtml.TextToken {
					return cleanText(string(z.Text()))
				}
				return ""
			case atom.Body:
				return ""
			}
		}
	}
}

// cleanText collapses every run of whitespace (Unicode's, so non-breaking
// spaces too) into one space, trims the ends, and replaces each run of
// invalid UTF-8 with U+FFFD, in one pass and one allocation.
func cleanText(s string) string { return cleanTextBytes([]byte(s), false) }

// cleanTextBytes is cleanText over bytes; with entities set it also decodes
// HTML character references, for sanitizer output (bluemonday escapes the
// text it keeps with html.EscapeString, so the five references that
// produces are decoded inline and anything else goes to html.UnescapeString).
func cleanTextBytes(b []byte, entities bool) string {
	var out strings.Builder
	out.Grow(len(b))
	space, bad := false, false
	emit := func(r rune, raw []byte) {
		if unicode.IsSpace(r) {
			space = out.Len() > 0
			return
		}
		if space {
			out.WriteByte(' ')
			space = false
		}
		if raw != nil {
			out.Write(raw)
		} else {
			out.WriteRune(r)
		}
	}
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '&' && entities:
			r, n, ok := decodeEntity(b[i:])
			if ok {
				bad = false
				if n < 0 { // several runes
					for _, r := range html.UnescapeString(string(b[i : i-n])) {
						emit(r, nil)
					}
					i -= n
					continue
				}
				emit(r, nil)
				i += n
				continue
			}
			bad = false
			emit('&', b[i:i+1])
			i++
		case c < utf8.RuneSelf && asciiSpace[c]:
			bad = false
			space = out.Len() > 0
			i++
		case c < utf8.RuneSelf:
			// Copy the whole run of plain ASCII at once: most text is that.
			bad = false
			j := i + 1
			for j < len(b) && plainASCII(b[j]) {
				j++
				// A single space between words needs no collapsing.
				if j+1 < len(b) && b[j] == ' ' && plainASCII(b[j+1]) {
					j += 2
				}
			}
			if space {
				out.WriteByte(' ')
				space = false
			}
			out.Write(b[i:j])
			i = j
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				if !bad {
					emit(utf8.RuneError, nil)
				}
				bad = true
				i++
				continue
			}
			bad = false
			emit(r, b[i:i+size])
			i += size
		}
	}
	return out.String()
}

var asciiSpace = [utf8.RuneSelf]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

func plainASCII(c byte) bool { return c < utf8.RuneSelf && !asciiSpace[c] && c != '&' }

// decodeEntity decodes the character reference at the start of b. It
// returns the rune and the reference's length, or, for a reference that
// needs html.UnescapeString, a negative length whose magnitude is the
// reference's length.
func decodeEntity(b []byte) (rune, int, bool) {
	switch {
	case bytes.HasPrefix(b, []byte("&amp;")):
		return '&', 5, true
	case bytes.HasPrefix(b, []byte("&#39;")):
		return '\'', 5, true
	case bytes.HasPrefix(b, []byte("&lt;")):
		return '<', 4, true
	case bytes.HasPrefix(b, []byte("&gt;")):
		return '>', 4, true
	case bytes.HasPrefix(b, []byte("&#34;")), bytes.HasPrefix(b, []byte("&quot;")):
		if b[1] == 'q' {
			return '"', 6, true
		}
		return '"', 5, true
	}
	// Anything else: let the standard library judge up to the ';'.
	end := bytes.IndexByte(b[:min(len(b), 40)], ';')
	if end < 2 {
		return 0, 0, false
	}
	return 0, -(end + 1), true
}

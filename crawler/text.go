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
	// The sanitizer escapes the text it keeps (&amp;, &#39;...).
	p.TextContent = cleanText(html.UnescapeString(buf.String()))
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
// spaces too) into one space, trims the ends, and replaces invalid UTF-8.
func cleanText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

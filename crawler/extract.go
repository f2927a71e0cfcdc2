package crawler

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"golang.org/x/net/html"

	"github.com/linksrus/linksrus/pipeline"
)

// PageExtractor is the pipeline stage that does the LinkExtractor's and
// the TextExtractor's work in one pass of the HTML tokenizer, for crawls
// that want both: tokenizing is most of either's cost. Its results are
// theirs, field for field.
type PageExtractor struct {
	links    *LinkExtractor
	repeated repeatedText
}

// NewPageExtractor returns the combined extraction stage; detector and
// opts are the LinkExtractor's (see NewLinkExtractorWithOptions).
func NewPageExtractor(detector PrivateNetworkDetector, opts LinkOptions) *PageExtractor {
	return &PageExtractor{links: NewLinkExtractorWithOptions(detector, opts)}
}

// Process implements pipeline.Processor.
func (x *PageExtractor) Process(_ context.Context, pp pipeline.Payload) (pipeline.Payload, error) {
	p, err := asPayload(pp)
	if err != nil {
		return nil, fmt.Errorf("crawler: extract page: %w", err)
	}
	if p.Unchanged {
		return p, nil // its links and text are stored already
	}
	base, err := pageURL(p)
	if err != nil {
		return nil, err
	}
	buf, chrome := textBufPool.Get().(*bytes.Buffer), textBufPool.Get().(*bytes.Buffer)
	defer textBufPool.Put(buf)
	defer textBufPool.Put(chrome)
	buf.Reset()
	chrome.Reset()

	ls := x.links.scan(p, base)
	ts := newTextScan(buf, chrome)
	z := html.NewTokenizer(bytes.NewReader(p.Body))
	var textErr error
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if err := z.Err(); err != io.EOF {
				textErr = err // the links found so far are kept, as LinkExtractor does
			}
			break
		}
		if tt == html.SelfClosingTagToken && selfClosedRawText(z.Raw()) {
			z.NextIsNotRawText()
		}
		// Text first: it reads the tag's name, the links scan its
		// attributes.
		text := ts.token(z, tt)
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			ls.tag(z)
		case html.EndTagToken:
			ls.endTag(z)
		case html.TextToken:
			ls.text(text)
		}
	}
	ls.finish()
	if textErr != nil {
		return nil, fmt.Errorf("crawler: extract text of %q: %w", p.URL, textErr)
	}
	ts.finish(p, base.Host, &x.repeated, chrome)
	if x.links.lastReader {
		p.releaseBody()
	}
	return p, nil
}

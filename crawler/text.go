package crawler

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/linksrus/linksrus/pipeline"
)

// TextExtractor is the text extraction stage: it fills in Payload.Title
// and TextContent with plain text fit for a full-text index: what a reader
// of the page sees, in one pass of the HTML tokenizer.
//
// The text is the page's text nodes, with:
//
//   - the contents of elements a reader does not see dropped: script,
//     style, noscript, template, iframe, object, frame, frameset, noembed,
//     noframes, nostyle, and title (which is the page's Title instead);
//   - words separated where a browser separates them: at block-level
//     elements (paragraphs, headings, lists and their items, divisions,
//     tables and their cells, ...), at <br>, at replaced elements such as
//     <img> and form controls; and not at inline elements, so that
//     "H<sub>2</sub>O", "<em>un</em>believable" and a drop cap
//     "<span>T</span>he" stay one word each;
//   - character references decoded, every run of whitespace collapsed to
//     one space, invalid UTF-8 replaced with U+FFFD;
//   - the page's chrome left out: navigation, the site's header and
//     footer, sidebars (see chromeTag), unless nothing else is left;
//   - the blocks its host's pages repeat left out (see repeatedText):
//     a site's navigation and notices where nothing marks them.
//
// The text of the headings (h1 to h6) that stay in the text is
// Payload.Headings as well, a line each, for the index to weigh as a field
// of its own: at most maxHeadingBytes of a heading (a longer one is a
// broken or abused tag, not a heading) and the first maxHeadingsBytes of
// them all.
//
// A self-closed raw-text element (<script src="a.js"/>, as XHTML writes
// it) is empty, as an XHTML parser reads it. The title is the text of the
// first <title> before <body> that is not inside SVG or MathML.
//
// A TextExtractor learns the blocks each host repeats from the pages it
// sees: one extractor should see a crawl's pages.
type TextExtractor struct {
	repeated repeatedText
}

// NewTextExtractor returns the text extraction stage.
func NewTextExtractor() *TextExtractor { return &TextExtractor{} }

var textBufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Process implements pipeline.Processor.
func (t *TextExtractor) Process(_ context.Context, pp pipeline.Payload) (pipeline.Payload, error) {
	p, err := asPayload(pp)
	if err != nil {
		return nil, fmt.Errorf("crawler: extract text: %w", err)
	}
	if p.Unchanged {
		return p, nil // its text is indexed already
	}
	buf, chrome := textBufPool.Get().(*bytes.Buffer), textBufPool.Get().(*bytes.Buffer)
	defer textBufPool.Put(buf)
	defer textBufPool.Put(chrome)
	buf.Reset()
	chrome.Reset()
	s, err := extractText(p.Body, buf, chrome)
	if err != nil {
		return nil, fmt.Errorf("crawler: extract text of %q: %w", p.URL, err)
	}
	host := ""
	if base, err := pageURL(p); err == nil {
		host = base.Host
	}
	s.finish(p, host, &t.repeated, chrome)
	return p, nil
}

// finish fills in p's Title, TextContent and Language from the scan once
// it is over, leaving out what host's pages repeat (unless host is "");
// spare is a buffer of the scan's that it may reuse.
func (s *textScan) finish(p *Payload, host string, repeated *repeatedText, spare *bytes.Buffer) {
	p.Title = cleanTextBytes(s.title, false)
	text := s.text()
	if host != "" {
		text, s.blocks.sums = repeated.leaveOut(host, text, s.textBlocks(), s.blocks.sums, spare)
	}
	p.TextContent = cleanTextBytes(text, false)
	p.Headings = s.headingsText()
	blockBufs.Put(s.blocks)
	s.blocks = nil
	if s.lang != "" {
		p.Language = s.lang
	}
}

// hidesContent reports whether a is an element whose content a reader
// does not see. (A switch: a map lookup per tag cost the text scan a
// quarter of its time.)
func hidesContent(a atom.Atom) bool {
	switch a {
	case atom.Frame, atom.Frameset, atom.Iframe, atom.Noembed, atom.Noframes, atom.Noscript,
		atom.Object, atom.Script, atom.Style, atom.Template, atom.Title:
		return true
	}
	return false
}

// isInline reports whether a is an element that does not separate words:
// the text inside it runs on with the text around it, as a browser
// renders it. Every other tag (block-level elements, <br>, table cells,
// replaced elements, unknown tags) writes a space.
func isInline(a atom.Atom) bool {
	switch a {
	case atom.A, atom.Abbr, atom.B, atom.Bdi, atom.Bdo, atom.Big, atom.Cite, atom.Code,
		atom.Data, atom.Del, atom.Dfn, atom.Em, atom.Font, atom.I, atom.Ins, atom.Kbd,
		atom.Label, atom.Mark, atom.Nobr, atom.Q, atom.Rp, atom.Rt, atom.Ruby, atom.S,
		atom.Samp, atom.Small, atom.Span, atom.Strike, atom.Strong, atom.Sub, atom.Sup,
		atom.Time, atom.Tt, atom.U, atom.Var, atom.Wbr:
		return true
	}
	return false
}

// extractText writes the visible text of body to w, with a space for every
// tag that separates words, and returns the scan that did it, over: its
// title is the text of the first <title> before <body> (nil if there is
// none), its text() the page's, both with character references decoded
// but whitespace left as it is, and its lang the language of its <html
// lang> ("" if it says none).
func extractText(body []byte, w, chrome *bytes.Buffer) (*textScan, error) {
	z := xhtml.NewTokenizer(bytes.NewReader(body))
	s := newTextScan(w, chrome)
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			if err := z.Err(); err != io.EOF {
				return nil, err
			}
			return s, nil
		}
		if tt == xhtml.SelfClosingTagToken && selfClosedRawText(z.Raw()) {
			z.NextIsNotRawText() // see selfClosedRawText
		}
		s.token(z, tt)
	}
}

// textScan is a text extraction under way over one page's tokens: the
// caller runs the tokenizer and hands it every token (so that one pass can
// feed other scans too: see PageExtractor).
type textScan struct {
	w *bytes.Buffer
	// chromeW, if set, takes the text of the page's chrome (see
	// chromeTag) instead of w: chrome is the depth in the element that
	// opened it, counting elements of its name, chromeName.
	chromeW    *bytes.Buffer
	chrome     int
	chromeName string
	sectioning int // depth in article, main and section
	title      []byte
	lang       string // of the first <html> start tag, if it says
	htmlSeen   bool
	skipping   int  // depth in elements that hide their content ("nostyle" included)
	rawScript  bool // just after a script or style start tag
	inBody     bool
	foreign    int // depth in svg and math, whose <title> is not the page's
	wantTitle  bool
	titleNext  bool
	// blocks are the spans of w between tags that separate words (see
	// repeatedText), once they hold text; block is the one being written.
	blocks *blockBuf
	block  textBlock
	inLink bool // inside <a> (not a depth: the parser closes an open <a> at the next)
	// heading is set inside a heading whose text starts at headingStart
	// in w (headings do not nest: a parser closes one at the next).
	heading      bool
	headingStart int
}

// Bounds of Payload.Headings: a heading longer than maxHeadingBytes is
// not one (a tag left open, a page in a heading), and a reference page
// can have thousands (rustdoc makes every method's signature an <h4>),
// of which the first maxHeadingsBytes say what the page is about.
const (
	maxHeadingBytes  = 512
	maxHeadingsBytes = 8 << 10
)

// isHeading reports whether a is h1 to h6.
func isHeading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// endHeading ends the heading being read, keeping its span of w unless it
// is too long to be a heading.
func (s *textScan) endHeading() {
	if !s.heading {
		return
	}
	s.heading = false
	if end := s.w.Len(); end-s.headingStart <= maxHeadingBytes {
		s.blocks.headings = append(s.blocks.headings, span{s.headingStart, end})
	}
}

// headingsText returns the text of the page's headings once the scan is
// over (see TextExtractor): those not in a block its host's pages repeat
// (finish has marked them), a line each. It reads the blocks, so it runs
// before they go back to their pool.
func (s *textScan) headingsText() string {
	if s.chromeOnly() {
		return "" // the headings read were not in the text (see text)
	}
	var b strings.Builder
	blocks := s.blocks.blocks
	for _, h := range s.blocks.headings {
		for len(blocks) > 0 && blocks[0].end <= h.start {
			blocks = blocks[1:]
		}
		if repeatedIn(blocks, h) {
			continue
		}
		text := cleanTextBytes(s.w.Bytes()[h.start:h.end], false)
		if text == "" {
			continue
		}
		if b.Len()+len(text) > maxHeadingsBytes {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(text)
	}
	return b.String()
}

// repeatedIn reports whether a block of blocks (in page order) within h
// was left out as repeated.
func repeatedIn(blocks []textBlock, h span) bool {
	for _, b := range blocks {
		if b.start >= h.end {
			return false
		}
		if b.repeated {
			return true
		}
	}
	return false
}

// span is a part of a scan's w.
type span struct{ start, end int }

// textBlock is a span of a page's text between two tags that separate
// words: a paragraph, a table cell, a list item, a heading.
type textBlock struct {
	start, end int // in the scan's w
	// text: the span holds more than white space; bare: some of it is
	// outside a link; repeated: it is left out, its host's pages repeating it.
	text, bare, repeated bool
}

// blockBuf holds a page's blocks and room for their hashes, reused from
// page to page.
type blockBuf struct {
	blocks   []textBlock
	sums     []blockSum
	headings []span
}

var blockBufs = sync.Pool{New: func() any { return new(blockBuf) }}

// endBlock ends the block being written to w (at a tag that separates
// words, or at the end of the page) and starts the next.
func (s *textScan) endBlock() {
	if s.block.text {
		s.block.end = s.w.Len()
		s.blocks.blocks = append(s.blocks.blocks, s.block)
	}
	s.block = textBlock{start: s.w.Len()}
}

// textBlocks returns the blocks of the page's text (text), or nil when the
// text is the chrome's (see text).
func (s *textScan) textBlocks() []textBlock {
	s.endBlock()
	if s.chromeOnly() {
		return nil
	}
	return s.blocks.blocks
}

// newTextScan returns a scan writing the page's text to w and, unless
// chrome is nil, its chrome's to chrome (see text).
func newTextScan(w, chrome *bytes.Buffer) *textScan {
	bufs := blockBufs.Get().(*blockBuf)
	bufs.blocks, bufs.headings = bufs.blocks[:0], bufs.headings[:0]
	return &textScan{w: w, chromeW: chrome, wantTitle: true, blocks: bufs}
}

// out is where text goes now: the chrome's buffer inside chrome.
func (s *textScan) out() *bytes.Buffer {
	if s.chrome > 0 {
		return s.chromeW
	}
	return s.w
}

// text returns the page's text once the scan is over: what is not chrome,
// or, when that is blank (a page of navigation only, or whose chrome
// element never closed), the chrome's text, so that no page loses all of
// its text.
func (s *textScan) text() []byte {
	if s.chromeOnly() {
		return s.chromeW.Bytes()
	}
	return s.w.Bytes()
}

// chromeOnly reports whether the page's text is its chrome's: nothing
// else is left (see text).
func (s *textScan) chromeOnly() bool { return s.chromeW != nil && blank(s.w.Bytes()) }

// trackChrome follows the elements that open and close chrome (see
// chromeTag) for a tag of atom a whose raw text is raw.
func (s *textScan) trackChrome(a atom.Atom, raw []byte, tt xhtml.TokenType) {
	end := tt == xhtml.EndTagToken
	switch a {
	case atom.Article, atom.Main, atom.Section:
		if !end {
			s.sectioning++
		} else if s.sectioning > 0 {
			s.sectioning--
		}
	}
	if s.chrome > 0 {
		name := raw
		if end && len(name) > 1 {
			name = name[1:] // the name follows "</"
		}
		if equalLower(rawName(name), s.chromeName) {
			if end {
				s.chrome--
			} else {
				s.chrome++
			}
		}
		return
	}
	if !end && chromeTag(a, raw, s.sectioning) {
		if name := strings.ToLower(string(rawName(raw))); !endsWithoutEndTag(name) {
			s.chrome = 1
			s.chromeName = name
		}
	}
}

// token handles the token z is on, and returns a text token's text (which
// the tokenizer gives once) for a scan after it. It reads a tag's name from
// the raw token, leaving the tokenizer's TagName and TagAttr to that scan.
func (s *textScan) token(z *xhtml.Tokenizer, tt xhtml.TokenType) (text []byte) {
	switch tt {
	case xhtml.TextToken:
		text = z.Text()
		if s.titleNext {
			s.title = append([]byte(nil), text...)
			s.titleNext = false
		}
		if s.skipping == 0 && !s.rawScript {
			s.out().Write(text)
			if s.chrome == 0 && !blank(text) {
				s.block.text = true
				s.block.bare = s.block.bare || !s.inLink
			}
		}
	case xhtml.StartTagToken, xhtml.EndTagToken, xhtml.SelfClosingTagToken:
		s.titleNext = false
		a, nostyle := rawTagAtom(z.Raw(), tt == xhtml.EndTagToken)
		if a == atom.Script || a == atom.Style {
			// Their text is dropped until the next tag, which is
			// their end tag, since the tokenizer reads it raw.
			s.rawScript = tt == xhtml.StartTagToken
			return
		}
		s.rawScript = false
		if a == atom.A && tt != xhtml.SelfClosingTagToken {
			s.inLink = tt == xhtml.StartTagToken
		}
		// Inline elements neither separate words nor open chrome.
		if !isInline(a) {
			if s.chrome == 0 {
				s.endBlock()
			}
			if isHeading(a) && tt != xhtml.SelfClosingTagToken {
				s.endHeading()
				s.heading = tt == xhtml.StartTagToken && s.chrome == 0 && s.skipping == 0
				s.headingStart = s.w.Len()
			}
			s.out().WriteByte(' ')
			if s.chromeW != nil && tt != xhtml.SelfClosingTagToken {
				s.trackChrome(a, z.Raw(), tt)
			}
		}
		if tt == xhtml.SelfClosingTagToken {
			return
		}
		skip := hidesContent(a) || nostyle
		switch {
		case tt == xhtml.EndTagToken:
			if skip && s.skipping > 0 {
				s.skipping--
			}
		case a == atom.Html && !s.htmlSeen:
			s.htmlSeen = true
			s.lang = rawLang(z.Raw())
		case a == atom.Body:
			s.inBody = true
		case a == atom.Svg || a == atom.Math:
			s.foreign++
		case a == atom.Title && s.wantTitle && !s.inBody && s.foreign == 0:
			s.wantTitle, s.titleNext = false, true
		}
		if tt == xhtml.EndTagToken && (a == atom.Svg || a == atom.Math) && s.foreign > 0 {
			s.foreign--
		}
		if skip && tt == xhtml.StartTagToken {
			s.skipping++
		}
	}
	return text
}

// rawTagAtom returns the atom of the tag whose raw text is raw ("<p
// class=x>", or "</p>" for an end tag) as textAtom gives it, and whether
// it is a <nostyle> (which has no atom). The name is read where and as the tokenizer reads
// it (see rawName), lower-cased in a buffer of its own: the tokenizer's
// TagName allocates a copy of every tag's name, which on a page of many
// tags cost the text scan a third of its time.
func rawTagAtom(raw []byte, end bool) (a atom.Atom, nostyle bool) {
	if end && len(raw) > 1 {
		raw = raw[1:] // the name follows "</"
	}
	name := rawName(raw)
	var lower [maxTextTagLen]byte
	if len(name) > len(lower) {
		return 0, false // longer than any name textAtom knows
	}
	for i, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	a = textAtom(lower[:len(name)])
	return a, a == 0 && string(lower[:len(name)]) == "nostyle"
}

// textAtom returns the atom of name, a lower-case tag name, if it is one
// of the elements the text scan treats apart (see token: inline elements,
// elements hiding their content, body, svg and math), and 0 for any other
// tag, which the scan treats as it treats an unknown one. A switch over
// these few names costs less than atom.Lookup over all of them.
func textAtom(name []byte) atom.Atom {
	switch string(name) {
	case "a":
		return atom.A
	case "abbr":
		return atom.Abbr
	case "b":
		return atom.B
	case "bdi":
		return atom.Bdi
	case "bdo":
		return atom.Bdo
	case "html":
		return atom.Html
	case "big":
		return atom.Big
	case "body":
		return atom.Body
	case "cite":
		return atom.Cite
	case "code":
		return atom.Code
	case "data":
		return atom.Data
	case "del":
		return atom.Del
	case "dfn":
		return atom.Dfn
	case "em":
		return atom.Em
	case "font":
		return atom.Font
	case "frame":
		return atom.Frame
	case "frameset":
		return atom.Frameset
	case "i":
		return atom.I
	case "iframe":
		return atom.Iframe
	case "ins":
		return atom.Ins
	case "kbd":
		return atom.Kbd
	case "label":
		return atom.Label
	case "mark":
		return atom.Mark
	case "math":
		return atom.Math
	case "nobr":
		return atom.Nobr
	case "noembed":
		return atom.Noembed
	case "noframes":
		return atom.Noframes
	case "noscript":
		return atom.Noscript
	case "object":
		return atom.Object
	case "q":
		return atom.Q
	case "rp":
		return atom.Rp
	case "rt":
		return atom.Rt
	case "ruby":
		return atom.Ruby
	case "s":
		return atom.S
	case "samp":
		return atom.Samp
	case "script":
		return atom.Script
	case "small":
		return atom.Small
	case "span":
		return atom.Span
	case "strike":
		return atom.Strike
	case "strong":
		return atom.Strong
	case "style":
		return atom.Style
	case "sub":
		return atom.Sub
	case "sup":
		return atom.Sup
	case "svg":
		return atom.Svg
	case "template":
		return atom.Template
	case "time":
		return atom.Time
	case "title":
		return atom.Title
	case "tt":
		return atom.Tt
	case "u":
		return atom.U
	case "var":
		return atom.Var
	case "wbr":
		return atom.Wbr
	case "nav":
		return atom.Nav
	case "aside":
		return atom.Aside
	case "header":
		return atom.Header
	case "footer":
		return atom.Footer
	case "article":
		return atom.Article
	case "main":
		return atom.Main
	case "section":
		return atom.Section
	case "h1":
		return atom.H1
	case "h2":
		return atom.H2
	case "h3":
		return atom.H3
	case "h4":
		return atom.H4
	case "h5":
		return atom.H5
	case "h6":
		return atom.H6
	}
	return 0
}

// maxTextTagLen is the length of the longest name textAtom knows
// ("frameset", "noframes", "noscript", "template").
const maxTextTagLen = 8

// cleanTextBytes collapses every run of whitespace (Unicode's, so
// non-breaking spaces too) into one space, trims the ends, and replaces each
// run of invalid UTF-8 with U+FFFD, in one pass and one allocation. With
// entities set it also decodes HTML character references, for sanitizer
// output such as bluemonday's (which escapes the text it keeps with
// html.EscapeString, so the five references that produces are decoded
// inline and anything else goes to html.UnescapeString).
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

// blank reports whether b is white space only.
func blank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

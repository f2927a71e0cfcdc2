package crawler

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/crawler/urlnorm"
	"github.com/linksrus/linksrus/pipeline"
)

// LinkExtractor is the link extraction stage: it tokenizes each page with
// golang.org/x/net/html and fills in Payload.Links and NoFollowLinks.
//
// It reads the href of every <a> and <area>, resolves it against the
// page's URL (after redirects) or its first <base href> as browsers do
// (the WHATWG URL standard: see urlnorm.Resolve), drops links to the page
// itself (an empty or fragment-only href), removes the fragment and user
// info, keeps only http and https, and removes duplicates, so each link
// appears once, in document order, in one of the two lists: NoFollowLinks
// if every occurrence carries rel="nofollow", or the page says nofollow
// (meta robots or X-Robots-Tag), Links otherwise.
// <meta name="robots" content="noindex"> sets Payload.NoIndex.
//
// Every link is normalised with package urlnorm before it is de-duplicated
// and stored, so that the spellings of one URL ("HTTP://Example.com:80/a/../b"
// and "http://example.com/b") become one link; links urlnorm rejects are
// dropped. The optional normalisations (query sorting, tracking parameters)
// are off unless LinkOptions turns them on.
//
// Links to non-HTML content (by extension), to literal private addresses
// (in any spelling browsers read: "http://0x7f.1/" is 127.0.0.1) and to
// local-only names are dropped. No DNS lookup happens here: names
// are checked when, and if, they are fetched.
type LinkExtractor struct {
	detector PrivateNetworkDetector
	norm     urlnorm.Options
	// general turns off the shortcuts (resolveFast, rawLinkAttrs) so that
	// tests can hold them to the general path's results page by page.
	general bool
	// lastReader: no stage after this one reads the page's body, which
	// it then hands back for the next fetch (see Payload.releaseBody).
	lastReader bool
}

// LinkOptions are the link extraction stage's settings; see
// NewLinkExtractorWithOptions. The zero value gives the defaults.
type LinkOptions struct {
	// Normalization selects urlnorm's optional normalisations of extracted
	// links. The zero value applies only those that never change which
	// resource a URL names; StripTracking and SortQuery merge more variants
	// of a page at the price of rewriting the query its server receives.
	Normalization urlnorm.Options
}

// NewLinkExtractor returns the link extraction stage with the default
// LinkOptions; a nil detector means privnet.New().
func NewLinkExtractor(detector PrivateNetworkDetector) *LinkExtractor {
	return NewLinkExtractorWithOptions(detector, LinkOptions{})
}

// NewLinkExtractorWithOptions is NewLinkExtractor with options.
func NewLinkExtractorWithOptions(detector PrivateNetworkDetector, opts LinkOptions) *LinkExtractor {
	if detector == nil {
		detector = privnet.New()
	}
	return &LinkExtractor{detector: detector, norm: opts.Normalization}
}

// Process implements pipeline.Processor.
func (e *LinkExtractor) Process(_ context.Context, pp pipeline.Payload) (pipeline.Payload, error) {
	p, err := asPayload(pp)
	if err != nil {
		return nil, fmt.Errorf("crawler: extract links: %w", err)
	}
	if p.Unchanged {
		return p, nil // its links are stored already
	}
	base, err := pageURL(p)
	if err != nil {
		return nil, err
	}
	e.extract(p, base)
	if e.lastReader {
		p.releaseBody()
	}
	return p, nil
}

// pageURL is the URL p's links are relative to: where its body came from.
func pageURL(p *Payload) (*url.URL, error) {
	page := p.FinalURL
	if page == "" {
		page = p.URL
	}
	base, err := url.Parse(page)
	if err != nil {
		// The fetcher only passes parsable URLs; a hand-made payload may not.
		return nil, fmt.Errorf("crawler: extract links of %q: %w", page, err)
	}
	return base, nil
}

// linkSet de-duplicates a page's links; pooled so that its map keeps its
// buckets, and buf its capacity, between pages.
type linkSet struct {
	seen  map[string]linkRef
	buf   []byte // scratch space resolveFast builds links in
	words []byte // a link's words, as linkScan reads them
}

type linkRef struct {
	noFollow bool
	index    int
}

var linkSetPool = sync.Pool{New: func() any { return &linkSet{seen: make(map[string]linkRef)} }}

// extract tokenizes p.Body and appends the links found to p.
func (e *LinkExtractor) extract(p *Payload, base *url.URL) {
	s := e.scan(p, base)
	z := html.NewTokenizer(bytes.NewReader(p.Body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break // io.EOF, or a malformed tail: keep what was found
		}
		switch tt {
		case html.TextToken:
			if s.inAnchor {
				s.text(z.Text())
			}
			continue
		case html.EndTagToken:
			s.endTag(z)
			continue
		case html.StartTagToken, html.SelfClosingTagToken:
		default:
			continue
		}
		if tt == html.SelfClosingTagToken && selfClosedRawText(z.Raw()) {
			z.NextIsNotRawText()
		}
		s.tag(z)
	}
	s.finish()
}

// linkScan is a link extraction under way over one page's tokens: the
// caller runs the tokenizer and hands it every start tag (so that one pass
// can feed other scans too: see PageExtractor).
type linkScan struct {
	e            *LinkExtractor
	p            *Payload
	set          *linkSet
	pb           *pageBase
	noFollowPage bool
	baseSeen     bool
	// The words of the <a> open (inAnchor) at anchorAt in Payload.Links
	// (-1: a link not kept, or not followed, has no words kept).
	inAnchor bool
	anchorAt int
	words    []byte
}

// scan starts extracting p's links, relative to base.
func (e *LinkExtractor) scan(p *Payload, base *url.URL) *linkScan {
	set := linkSetPool.Get().(*linkSet)
	return &linkScan{
		e:            e,
		p:            p,
		set:          set,
		pb:           e.pageBase(base),
		noFollowPage: p.noFollow,
		words:        set.words[:0],
	}
}

// tag handles the start (or self-closing) tag z is on. Attributes are read
// with TagAttr, or from the raw token: call it after anything else that
// needs them.
func (s *linkScan) tag(z *html.Tokenizer) {
	e, p := s.e, s.p
	// The name is read from the raw token: TagName would copy it
	// (x/net/html allocates on every call), for every tag of the page.
	switch rawTagName(z.Raw()) {
	case tagLink:
		// An <a> ends the one before it, as browsers end an <a> nested
		// in another.
		s.endAnchor()
		var href, rel, alt []byte
		ok, read := false, false
		if !e.general {
			href, rel, ok, read = rawLinkAttrs(z.Raw())
		}
		if !read {
			href, rel, alt, ok = linkAttrs(z)
		}
		if !ok {
			return
		}
		at := e.add(p, s.set, s.pb, href, hasToken(rel, "nofollow"))
		if len(rawName(z.Raw())) == 1 { // <a>: its words follow
			s.anchorAt, s.inAnchor = at, true
			s.words = s.words[:0]
			return
		}
		// <area>: its words are its alt text.
		if read {
			alt = []byte(attrOr(z, "alt"))
		}
		s.words = append(s.words[:0], alt...)
		s.anchorAt, s.inAnchor = at, true
		s.endAnchor()
	case tagBase:
		if s.baseSeen {
			return
		}
		if href, ok := attr(z, "href"); ok {
			s.baseSeen = true
			// A base that is no http(s) URL is ignored, as browsers
			// fall back to the page's URL.
			if b, err := urlnorm.Resolve(s.pb.raw, href, urlnorm.Options{}); err == nil {
				if u, err := url.Parse(b); err == nil {
					s.pb = e.pageBase(u)
				}
			}
		}
	case tagMeta:
		ni, nf := metaRobots(z)
		p.NoIndex = p.NoIndex || ni
		s.noFollowPage = s.noFollowPage || nf
	default:
		if s.inAnchor {
			s.inner(z, false)
		}
	}
}

// MaxLinkText bounds Payload.LinkTexts: the words of a page's link to
// another page are cut at the last whole word within this many bytes. A
// link's words name the page it leads to; a link wrapped around a whole
// paragraph, or a hostile page's, adds nothing beyond that.
const MaxLinkText = 120

// text hands the scan a text token of the page; only a link's words are
// kept.
func (s *linkScan) text(b []byte) {
	if s.inAnchor && len(s.words) < 4*MaxLinkText {
		s.words = append(s.words, b...)
	}
}

// endTag hands the scan an end tag of the page: </a> ends a link's words.
func (s *linkScan) endTag(z *html.Tokenizer) {
	if !s.inAnchor {
		return
	}
	raw := z.Raw()
	if len(raw) > 2 && len(rawName(raw[1:])) == 1 && (raw[2] == 'a' || raw[2] == 'A') {
		s.endAnchor()
		return
	}
	s.inner(z, true)
}

// inner handles a tag inside a link: one that separates words writes a
// space, and an image's alt text is among the link's words.
func (s *linkScan) inner(z *html.Tokenizer, end bool) {
	raw := z.Raw()
	img := !end && equalLower(rawName(raw), "img")
	if a, _ := rawTagAtom(raw, end); isInline(a) && !img {
		return
	}
	s.words = append(s.words, ' ')
	if img {
		if alt, ok := attr(z, "alt"); ok && len(s.words) < 4*MaxLinkText {
			s.words = append(s.words, alt...)
			s.words = append(s.words, ' ')
		}
	}
}

// endAnchor ends the open link's words, if one is open, and keeps them as
// its LinkTexts entry: the first words the page gives the link, and the
// words of its other links to the same page if they say something else,
// while they fit in MaxLinkText.
func (s *linkScan) endAnchor() {
	if !s.inAnchor {
		return
	}
	s.inAnchor = false
	p, at := s.p, s.anchorAt
	if at < 0 || at >= len(p.LinkTexts) || len(s.words) == 0 {
		return
	}
	words := cutWords(cleanTextBytes(s.words, false), MaxLinkText)
	switch had := p.LinkTexts[at]; {
	case words == "":
	case had == "":
		p.LinkTexts[at] = words
	case !strings.Contains(strings.ToLower(had), strings.ToLower(words)) && len(had)+2+len(words) <= MaxLinkText:
		p.LinkTexts[at] = had + "; " + words
	}
}

// cutWords returns s cut at the last space within max bytes, or at a rune
// boundary if it is one long word.
func cutWords(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > 0 {
		cut = sp
	}
	return s[:cut]
}

// finish applies a page-wide nofollow and releases the scan's buffers.
func (s *linkScan) finish() {
	s.endAnchor()
	p := s.p
	if s.noFollowPage {
		p.NoFollowLinks = append(p.NoFollowLinks, p.Links...)
		clear(p.Links)
		clear(p.LinkTexts)
		p.Links, p.LinkTexts = p.Links[:0], p.LinkTexts[:0]
	}
	clear(s.set.seen)
	s.set.words = s.words[:0]
	linkSetPool.Put(s.set)
	s.set = nil
}

// pageBase prepares base for resolving the page's links.
func (e *LinkExtractor) pageBase(base *url.URL) *pageBase {
	if e.general {
		return &pageBase{url: base, raw: base.String()} // no origin: resolveFast declines
	}
	return newPageBase(base)
}

// add records one occurrence of a link. A link followed anywhere on the page
// is followed: an occurrence without nofollow moves it from NoFollowLinks to
// Links.
//
// The common link (see resolveFast) is resolved, normalised and looked up
// in the page's set inside a reused buffer, so a repeated link costs no
// allocation and a new one costs its string. The rest take the general
// path, resolveLink.
//
// It returns the link's index in p.Links, or -1 when it is not there (not
// kept, or not followed).
func (e *LinkExtractor) add(p *Payload, set *linkSet, pb *pageBase, href []byte, noFollow bool) int {
	key, pathEnd, res := pb.resolveFast(set.buf[:0], href)
	set.buf = key[:0]
	switch {
	case res == fastDropped:
		return -1
	case res == fastResolved && (!e.rewritesQuery() || pathEnd == len(key)):
		if ref, dup := set.seen[string(key)]; dup {
			if ref.noFollow && !noFollow {
				return e.promote(p, set, ref, string(key))
			}
			return linkIndex(ref)
		}
		link := string(key)
		keep := pb.keepHost(e.detector) && !hasNonHTMLExtension(link[len(pb.origin):pathEnd])
		return e.record(p, set, link, keep, noFollow)
	}

	var link string
	var u *url.URL
	if res == fastResolved { // only the query is left to rewrite
		link, u = e.normalize(string(key))
	} else {
		link, u = resolveLink(pb.raw, string(href), e.norm)
	}
	if u == nil {
		return -1
	}
	if ref, dup := set.seen[link]; dup {
		if ref.noFollow && !noFollow {
			return e.promote(p, set, ref, link)
		}
		return linkIndex(ref)
	}
	return e.record(p, set, link, e.keep(u), noFollow)
}

// linkIndex is the index in Payload.Links of a link seen before, -1 if
// it is not there.
func linkIndex(ref linkRef) int {
	if ref.noFollow {
		return -1
	}
	return ref.index
}

// rewritesQuery reports whether normalisation may change a query that
// needs no escaping, which resolveFast leaves to urlnorm.
func (e *LinkExtractor) rewritesQuery() bool {
	return e.norm.SortQuery || e.norm.StripTracking
}

// promote moves link, seen so far only with nofollow at ref, to Links,
// and returns its index there.
func (e *LinkExtractor) promote(p *Payload, set *linkSet, ref linkRef, link string) int {
	p.NoFollowLinks = removeAt(p.NoFollowLinks, ref.index, set)
	return e.follow(p, set, link)
}

// follow appends link to p.Links, with no words yet, and returns its index.
func (e *LinkExtractor) follow(p *Payload, set *linkSet, link string) int {
	at := len(p.Links)
	set.seen[link] = linkRef{index: at}
	p.Links = append(p.Links, link)
	p.LinkTexts = append(p.LinkTexts, "")
	return at
}

// record stores the first occurrence of link, or only remembers it, so its
// next occurrences are skipped quickly, when keep is false. It returns the
// link's index in p.Links, or -1.
func (e *LinkExtractor) record(p *Payload, set *linkSet, link string, keep, noFollow bool) int {
	switch {
	case !keep:
		set.seen[link] = linkRef{index: -1}
	case noFollow:
		set.seen[link] = linkRef{noFollow: true, index: len(p.NoFollowLinks)}
		p.NoFollowLinks = append(p.NoFollowLinks, link)
	default:
		return e.follow(p, set, link)
	}
	return -1
}

// normalize returns the canonical form of a resolved link for the
// extractor's options and its parsed form, or a nil URL if the link is to
// be dropped.
func (e *LinkExtractor) normalize(link string) (string, *url.URL) {
	n, err := urlnorm.Normalize(link, e.norm)
	if err != nil {
		return "", nil
	}
	if len(n) > MaxURLLength {
		return "", nil
	}
	back, err := url.Parse(n)
	if err != nil || back.Host == "" {
		return "", nil
	}
	return n, back
}

// keep applies the filters that need the parsed URL.
func (e *LinkExtractor) keep(u *url.URL) bool {
	if hasNonHTMLExtension(u.Path) {
		return false
	}
	private, err := e.detector.IsPrivate(u.Hostname())
	return err == nil && !private
}

// removeAt removes links[i] keeping the order, and fixes the indices of
// the links after it.
func removeAt(links []string, i int, set *linkSet) []string {
	copy(links[i:], links[i+1:])
	links[len(links)-1] = ""
	links = links[:len(links)-1]
	for j := i; j < len(links); j++ {
		set.seen[links[j]] = linkRef{noFollow: true, index: j}
	}
	return links
}

// linkAttrs returns the href, rel and alt attributes of the current tag. They
// alias the tokenizer's buffer, so they are valid only until its next call.
func linkAttrs(z *html.Tokenizer) (href, rel, alt []byte, ok bool) {
	for {
		key, val, more := z.TagAttr()
		switch string(key) {
		case "href":
			if !ok { // the first href wins, as in browsers
				href, ok = val, true
			}
		case "rel":
			rel = val
		case "alt":
			alt = val
		}
		if !more {
			return href, rel, alt, ok
		}
	}
}

// attrOr returns the value of the current tag's attribute key, "" if it
// has none.
func attrOr(z *html.Tokenizer, key string) string {
	v, _ := attr(z, key)
	return v
}

// attr returns the first attribute called key of the current tag.
func attr(z *html.Tokenizer, key string) (string, bool) {
	for {
		k, v, more := z.TagAttr()
		if string(k) == key {
			return string(v), true
		}
		if !more {
			return "", false
		}
	}
}

// metaRobots reads <meta name="robots" content="...">.
func metaRobots(z *html.Tokenizer) (noIndex, noFollow bool) {
	var name, content string
	for {
		k, v, more := z.TagAttr()
		switch string(k) {
		case "name":
			name = string(v)
		case "content":
			content = string(v)
		}
		if !more {
			break
		}
	}
	if !strings.EqualFold(strings.TrimSpace(name), "robots") {
		return false, false
	}
	return parseRobotsContent(content)
}

// hasToken reports whether a space-separated list (such as rel) contains
// token, case-insensitively. Fields are split where strings.Fields would
// split them, without building the slice of them.
func hasToken(list []byte, token string) bool {
	for len(list) > 0 {
		start := bytes.IndexFunc(list, func(r rune) bool { return !unicode.IsSpace(r) })
		if start < 0 {
			return false
		}
		list = list[start:]
		end := bytes.IndexFunc(list, unicode.IsSpace)
		if end < 0 {
			end = len(list)
		}
		if bytes.EqualFold(list[:end], []byte(token)) {
			return true
		}
		list = list[end:]
	}
	return false
}

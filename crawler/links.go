package crawler

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/crawler/urlnorm"
	"github.com/linksrus/linksrus/pipeline"
)

// LinkExtractor is the link extraction stage: it tokenizes each page with
// golang.org/x/net/html and fills in Payload.Links and NoFollowLinks.
//
// It reads the href of every <a> and <area>, resolves it against the
// page's URL (after redirects) or its first <base href>, removes the
// fragment and user info, keeps only http and https, and removes
// duplicates, so each link appears once, in document order, in one of the
// two lists: NoFollowLinks if every occurrence carries rel="nofollow", or
// the page says nofollow (meta robots or X-Robots-Tag), Links otherwise.
// <meta name="robots" content="noindex"> sets Payload.NoIndex.
//
// Every link is normalised with package urlnorm before it is de-duplicated
// and stored, so that the spellings of one URL ("HTTP://Example.com:80/a/../b"
// and "http://example.com/b") become one link; links urlnorm rejects are
// dropped. The optional normalisations (query sorting, tracking parameters)
// are off unless LinkOptions turns them on.
//
// Links to non-HTML content (by extension), to literal private addresses
// and to local-only names are dropped. No DNS lookup happens here: names
// are checked when, and if, they are fetched.
type LinkExtractor struct {
	detector PrivateNetworkDetector
	norm     urlnorm.Options
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
	page := p.FinalURL
	if page == "" {
		page = p.URL
	}
	base, err := url.Parse(page)
	if err != nil {
		// The fetcher only passes parsable URLs; a hand-made payload may not.
		return nil, fmt.Errorf("crawler: extract links of %q: %w", page, err)
	}
	e.extract(p, base)
	return p, nil
}

// linkSet de-duplicates a page's links; pooled so that its map keeps its
// buckets between pages.
type linkSet struct {
	seen map[string]linkRef
}

type linkRef struct {
	noFollow bool
	index    int
}

var linkSetPool = sync.Pool{New: func() any { return &linkSet{seen: make(map[string]linkRef)} }}

// extract tokenizes p.Body and appends the links found to p.
func (e *LinkExtractor) extract(p *Payload, base *url.URL) {
	set := linkSetPool.Get().(*linkSet)
	defer func() {
		clear(set.seen)
		linkSetPool.Put(set)
	}()

	noFollowPage := p.noFollow
	baseSeen := false
	z := html.NewTokenizer(bytes.NewReader(p.Body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break // io.EOF, or a malformed tail: keep what was found
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if !hasAttr {
			continue
		}
		switch atom.Lookup(name) {
		case atom.A, atom.Area:
			href, rel, ok := linkAttrs(z)
			if !ok {
				continue
			}
			e.add(p, set, base, href, hasToken(rel, "nofollow"))
		case atom.Base:
			if baseSeen {
				continue
			}
			if href, ok := attr(z, "href"); ok {
				baseSeen = true
				if u, err := url.Parse(cleanHref(href)); err == nil {
					if b := base.ResolveReference(u); b.Scheme == "http" || b.Scheme == "https" {
						base = b
					}
				}
			}
		case atom.Meta:
			ni, nf := metaRobots(z)
			p.NoIndex = p.NoIndex || ni
			noFollowPage = noFollowPage || nf
		}
	}
	if noFollowPage {
		p.NoFollowLinks = append(p.NoFollowLinks, p.Links...)
		clear(p.Links)
		p.Links = p.Links[:0]
	}
}

// add records one occurrence of a link. A link followed anywhere on the page
// is followed: an occurrence without nofollow moves it from NoFollowLinks to
// Links.
func (e *LinkExtractor) add(p *Payload, set *linkSet, base *url.URL, href string, noFollow bool) {
	link, u := resolveLink(base, href)
	if u == nil {
		return
	}
	if link, u = e.normalize(link, u); u == nil {
		return
	}
	if ref, dup := set.seen[link]; dup {
		if ref.noFollow && !noFollow {
			p.NoFollowLinks = removeAt(p.NoFollowLinks, ref.index, set)
			set.seen[link] = linkRef{index: len(p.Links)}
			p.Links = append(p.Links, link)
		}
		return
	}
	if !e.keep(u) {
		set.seen[link] = linkRef{index: -1} // dropped; remember to skip it quickly
		return
	}
	if noFollow {
		set.seen[link] = linkRef{noFollow: true, index: len(p.NoFollowLinks)}
		p.NoFollowLinks = append(p.NoFollowLinks, link)
		return
	}
	set.seen[link] = linkRef{index: len(p.Links)}
	p.Links = append(p.Links, link)
}

// normalize returns the canonical form of a resolved link and its parsed
// form, or a nil URL if the link is to be dropped. Already canonical links,
// the common case, cost neither an allocation nor a parse.
func (e *LinkExtractor) normalize(link string, u *url.URL) (string, *url.URL) {
	n, err := urlnorm.Normalize(link, e.norm)
	if err != nil {
		return "", nil
	}
	if n == link {
		return link, u
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

// linkAttrs returns the href and rel attributes of the current tag.
func linkAttrs(z *html.Tokenizer) (href, rel string, ok bool) {
	for {
		key, val, more := z.TagAttr()
		switch string(key) {
		case "href":
			if !ok { // the first href wins, as in browsers
				href, ok = string(val), true
			}
		case "rel":
			rel = string(val)
		}
		if !more {
			return href, rel, ok
		}
	}
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
// token, case-insensitively.
func hasToken(list, token string) bool {
	for _, f := range strings.Fields(list) {
		if strings.EqualFold(f, token) {
			return true
		}
	}
	return false
}

// Package anchors turns the links documents make to each other into the
// anchor text of the documents they point at, the same way for every
// textindex backend: a backend stores each document's outgoing links as
// Encode makes them, and hands them all to a Collector when it refreshes
// its anchor field (textindex.Indexer.UpdateAnchors).
//
// A page is described by what other pages' links say of it. The words of
// the links to a page count once per source page (a page with the same
// words on three links to it says them once), never from the page itself
// or a duplicate of it, and each distinct text of a page's anchor field
// once, however many pages use it: navigation repeated on every page of a
// site ("Next", "Home", a title in a sidebar) then weighs as one short text
// among the others, not hundreds.
package anchors

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/linksrus/linksrus/textindex"
)

// MaxTexts bounds the distinct texts of a document's anchor field: the
// MaxTexts given by the most source pages are kept.
const MaxTexts = 32

// MaxText bounds a link's text as stored; the crawler cuts them shorter.
const MaxText = 256

// ErrCorrupt is returned by Decode for bytes Encode did not make.
var ErrCorrupt = errors.New("anchors: links are corrupt")

// Encode returns a document's links with words as stored: sorted by URL,
// each URL written as the length it shares with the one before and the
// rest (a page's links to one site share most of their URL), then its
// text. Links without words, or with a URL or text that is not valid
// UTF-8, are left out (they give no anchor text); the words of repeated
// URLs are joined ("; "), each once. Encode returns nil when no link is left.
func Encode(links []textindex.Link) []byte {
	var kept []textindex.Link
	for _, l := range links {
		text := strings.TrimSpace(l.Text)
		if text == "" || l.URL == "" || !utf8.ValidString(l.URL) || !utf8.ValidString(text) {
			continue
		}
		if len(text) > MaxText {
			text = text[:MaxText]
			for !utf8.ValidString(text) {
				text = text[:len(text)-1]
			}
		}
		kept = append(kept, textindex.Link{URL: l.URL, Text: text})
	}
	if len(kept) == 0 {
		return nil
	}
	slices.SortStableFunc(kept, func(a, b textindex.Link) int { return strings.Compare(a.URL, b.URL) })
	var out []byte
	prev := ""
	for n := 0; n < len(kept); n++ {
		l := kept[n]
		for n+1 < len(kept) && kept[n+1].URL == l.URL {
			n++
			l.Text = joinWords(l.Text, kept[n].Text)
		}
		shared := 0
		for shared < len(prev) && shared < len(l.URL) && prev[shared] == l.URL[shared] {
			shared++
		}
		out = binary.AppendUvarint(out, uint64(shared))
		out = binary.AppendUvarint(out, uint64(len(l.URL)-shared))
		out = append(out, l.URL[shared:]...)
		out = binary.AppendUvarint(out, uint64(len(l.Text)))
		out = append(out, l.Text...)
		prev = l.URL
	}
	return out
}

// joinWords returns the words of two links to one page: had, and words
// after it unless had says them already (in any case) or they would not
// fit in MaxText.
func joinWords(had, words string) string {
	for _, w := range strings.Split(had, "; ") {
		if strings.EqualFold(w, words) {
			return had
		}
	}
	if len(had)+2+len(words) > MaxText {
		return had
	}
	return had + "; " + words
}

// Decode calls fn with each link of b, an Encode result, in URL order, and
// stops at fn's first error. Both slices are valid only during the call.
func Decode(b []byte, fn func(url, text []byte) error) error {
	var url []byte
	for len(b) > 0 {
		shared, n := binary.Uvarint(b)
		if n <= 0 || shared > uint64(len(url)) {
			return ErrCorrupt
		}
		b = b[n:]
		rest, n := binary.Uvarint(b)
		if n <= 0 || rest > uint64(len(b)-n) {
			return ErrCorrupt
		}
		url = append(url[:shared], b[n:n+int(rest)]...)
		b = b[n+int(rest):]
		tl, n := binary.Uvarint(b)
		if n <= 0 || tl > uint64(len(b)-n) || tl > MaxText {
			return ErrCorrupt
		}
		text := b[n : n+int(tl)]
		b = b[n+int(tl):]
		if err := fn(url, text); err != nil {
			return err
		}
	}
	return nil
}

// Links returns the links of b, an Encode result.
func Links(b []byte) ([]textindex.Link, error) {
	var out []textindex.Link
	err := Decode(b, func(url, text []byte) error {
		out = append(out, textindex.Link{URL: string(url), Text: string(text)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// A Collector gathers the anchor text of a set of documents. Every
// document is made known first (Document), with the key of its duplicate
// group's canonical, which is what gets anchor text; then every document's
// links are added (Links); Each then gives each canonical's texts.
type Collector[K comparable] struct {
	byURL   map[string]K
	targets map[K]map[string]*text[K] // a target's texts by their words folded
	fold    []byte
}

// text is one text of a target's anchor text.
type text[K comparable] struct {
	sources int
	last    K // the source that counted last: a source counts once
	// The text as the first source spelt it, and as others did when
	// they spelt it otherwise, with how many did.
	first     string
	firstN    int
	spellings map[string]int
}

// words returns the spelling most sources wrote, the first in byte order
// of those.
func (t *text[K]) words() string {
	best, n := t.first, t.firstN
	for w, k := range t.spellings {
		if k > n || (k == n && w < best) {
			best, n = w, k
		}
	}
	return best
}

// NewCollector returns an empty Collector.
func NewCollector[K comparable]() *Collector[K] {
	return &Collector[K]{byURL: make(map[string]K), targets: make(map[K]map[string]*text[K])}
}

// Document makes a document known: links to url give anchor text to the
// canonical document key.
func (c *Collector[K]) Document(url string, key K) { c.byURL[url] = key }

// Links adds the links of source, a group's canonical document: b as
// Encode made it. The other documents of its group are left out: they
// hold its text, and so its links, and would count them again. Links to
// unknown URLs, and to the source's own group, give nothing.
func (c *Collector[K]) Links(source K, b []byte) error {
	return Decode(b, func(url, words []byte) error {
		key, ok := c.byURL[string(url)]
		if !ok || key == source {
			return nil
		}
		texts := c.targets[key]
		if texts == nil {
			texts = make(map[string]*text[K])
			c.targets[key] = texts
		}
		for len(words) > 0 {
			w, rest, _ := bytes.Cut(words, []byte("; "))
			words = rest
			w = bytes.TrimSpace(w)
			if len(w) == 0 {
				continue
			}
			c.fold = foldWords(c.fold[:0], w)
			t := texts[string(c.fold)]
			switch {
			case t == nil:
				texts[string(c.fold)] = &text[K]{sources: 1, last: source, first: string(w), firstN: 1}
				continue
			case t.last == source:
				continue // this source said it already
			}
			t.sources++
			t.last = source
			if string(w) == t.first {
				t.firstN++
				continue
			}
			if t.spellings == nil {
				t.spellings = make(map[string]int)
			}
			t.spellings[string(w)]++
		}
		return nil
	})
}

// foldWords appends w lower-cased, its runs of white space made one space,
// to dst: the key of texts that differ only so.
func foldWords(dst, w []byte) []byte {
	space := false
	for i := 0; i < len(w); {
		c := w[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(w[i:])
			i += n
			if unicode.IsSpace(r) {
				space = true
				continue
			}
			if space {
				dst = append(dst, ' ')
				space = false
			}
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
			continue
		}
		i++
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
			space = true
			continue
		}
		if space {
			dst = append(dst, ' ')
			space = false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// Each calls fn with every document that has anchor text and its texts,
// each as most of its sources spell it, the most sources first (then in
// byte order), at most MaxTexts, in no particular order of documents, and
// stops at fn's first error.
func (c *Collector[K]) Each(fn func(key K, texts []string) error) error {
	type counted struct {
		words   string
		sources int
	}
	var all []counted
	for key, t := range c.targets {
		all = all[:0]
		for _, tx := range t {
			all = append(all, counted{tx.words(), tx.sources})
		}
		slices.SortFunc(all, func(a, b counted) int {
			if c := cmp.Compare(b.sources, a.sources); c != 0 {
				return c
			}
			return strings.Compare(a.words, b.words)
		})
		texts := make([]string, 0, min(len(all), MaxTexts))
		for _, tx := range all[:min(len(all), MaxTexts)] {
			texts = append(texts, tx.words)
		}
		if err := fn(key, texts); err != nil {
			return err
		}
	}
	return nil
}

// Join returns texts as one stored field, one per line.
func Join(texts []string) string { return strings.Join(texts, "\n") }

// Split is the inverse of Join.
func Split(field string) []string {
	if field == "" {
		return nil
	}
	return strings.Split(field, "\n")
}

package terms

import (
	"maps"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/french"
	"github.com/kljensen/snowball/hungarian"
	"github.com/kljensen/snowball/norwegian"
	"github.com/kljensen/snowball/russian"
	"github.com/kljensen/snowball/spanish"
	"github.com/kljensen/snowball/swedish"
)

// StemMark starts every stem as the backends store it beside the exact
// terms, so that a stem is a term of its own ("_vacuum") that no exact
// term can equal: '_' is never a term rune, so Split never yields one. A
// phrase of stems then matches stems only, and a document's stems and
// exact terms can share its fields. An ASCII mark keeps SQLite's
// tokenizer on its fast path, which a character beyond ASCII in every
// token would leave (a sixth of an embedded crawl's indexing time).
const StemMark = "_"

// maxStemmed bounds the terms a stemmer is asked about: longer ones (no
// word of a language) have no stem, so that hostile text costs a stemmer
// nothing out of proportion.
const maxStemmed = 64

// A Stemmer maps a term, as Split returns it, to its stem (without
// StemMark): the form its inflections share ("vacuuming", "vacuumed" and
// "vacuums" are all "vacuum").
type Stemmer struct {
	stem  func(string, bool) string
	stop  func(string) bool
	cache *stemCache
}

// Stem returns the stem of term; a Stemmer without a language (the zero
// Stemmer, for a language no stemmer exists for) returns term, and so
// does every Stemmer for a term without a stem (see stemOrStop).
func (s Stemmer) Stem(term string) string {
	if st := s.stemOrStop(term); st != "" {
		return st
	}
	return term
}

// stemOrStop returns the stem of term, or "" for a term that has none: a
// stop word of the language ("the", "and", "of"), whose stem is the word
// itself and says nothing its written form does not, while stop words are
// a third of a text's words; a number; a term too long to be a word. The
// stems leave those out (see Stems).
func (s Stemmer) stemOrStop(term string) string {
	if s.stem == nil {
		return term
	}
	if len(term) > maxStemmed || isNumber(term) {
		return "" // not a word of the language: nothing to stem
	}
	return s.cache.get(term, s.stem, s.stop)
}

// isNumber reports whether term is ASCII digits only, which no stemmer
// changes. Source listings and tables are full of them (the line numbers
// of a code page), so leaving them out of the stems saves much of their
// indexing.
func isNumber(term string) bool {
	for i := 0; i < len(term); i++ {
		if term[i] < '0' || term[i] > '9' {
			return false
		}
	}
	return true
}

// AppendStems appends to dst the stems of text's terms (as Split finds
// them), each with StemMark in front and a space after, the terms
// without a stem left out: what Stems of Split(text) joined by spaces
// would be, without a string per term.
func (s Stemmer) AppendStems(dst []byte, text string) []byte {
	for term := range All(text) {
		dst = s.appendStem(dst, term)
	}
	return dst
}

func (s Stemmer) appendStem(dst []byte, term string) []byte {
	st := s.stemOrStop(term)
	if st == "" {
		return dst
	}
	dst = append(dst, StemMark...)
	dst = append(dst, st...)
	return append(dst, ' ')
}

// StemOrNone returns the stem of term (as Split returns it), or "" for a
// term the stems leave out (see Stems).
func (s Stemmer) StemOrNone(term string) string { return s.stemOrStop(term) }

// Stems returns the stems of ts, each with StemMark in front, leaving out
// stop words and the other terms without a stem (see stemOrStop): a
// phrase of stems matches the stems of its other words, in order
// ("vacuum the table" matches "vacuumed tables" and "vacuum a table" as
// stems; as written, only itself).
func (s Stemmer) Stems(ts []string) []string {
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		if st := s.stemOrStop(t); st != "" {
			out = append(out, StemMark+st)
		}
	}
	return out
}

// stemmers are the languages a stemmer exists for, by the primary subtag
// of their BCP 47 tag, each with a cache of the stems it has computed: a
// crawl stems the same few thousand words over and over, and Snowball's
// steps allocate.
var stemmers = map[string]Stemmer{
	"en": {english.Stem, english.IsStopWord, new(stemCache)},
	"es": {spanish.Stem, spanish.IsStopWord, new(stemCache)},
	"fr": {french.Stem, french.IsStopWord, new(stemCache)},
	"hu": {hungarian.Stem, hungarian.IsStopWord, new(stemCache)},
	"ru": {russian.Stem, russian.IsStopWord, new(stemCache)},
	"sv": {swedish.Stem, swedish.IsStopWord, new(stemCache)},
	"nb": {norwegian.Stem, norwegian.IsStopWord, new(stemCache)},
	"nn": {norwegian.Stem, norwegian.IsStopWord, new(stemCache)},
	"no": {norwegian.Stem, norwegian.IsStopWord, new(stemCache)},
}

// StemmerFor returns the stemmer of the language of BCP 47 tag lang
// ("en", "en-GB", "fr-CA"; the primary subtag decides, case-insensitively):
// English for "", since most pages that do not say are English, and the
// zero Stemmer, which stems nothing, for a language without a stemmer or a
// tag that is not one.
func StemmerFor(lang string) Stemmer {
	if lang == "" {
		return stemmers["en"]
	}
	primary, _, _ := strings.Cut(lang, "-")
	primary, _, _ = strings.Cut(primary, "_") // en_US, as some servers write it
	return stemmers[strings.ToLower(strings.TrimSpace(primary))]
}

// stemCache remembers stems. Every indexing goroutine asks it for every
// word, so a lookup takes no lock: it reads an immutable map, and the
// stems computed since are kept under a lock until there are enough of
// them to publish a new map with them. The map is started afresh when
// full rather than evicting one by one: what a crawl asks for again is
// back after a few pages.
type stemCache struct {
	known   atomic.Pointer[map[string]string]
	mu      sync.Mutex
	pending map[string]string
}

const (
	stemCacheSize    = 1 << 16
	stemCachePublish = 256 // new stems gathered, at least, before the map is copied
)

// get returns the stem of term, or "" for a stop word. The pending stems
// are at most half the published map's size (or 256), so the cache holds
// at most about 1.5 × stemCacheSize stems.
func (c *stemCache) get(term string, stem func(string, bool) string, stop func(string) bool) string {
	if m := c.known.Load(); m != nil {
		if s, ok := (*m)[term]; ok {
			return s
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.pending[term]; ok {
		return s
	}
	var s string
	if !stop(term) {
		s = stem(term, true)
	}
	if c.pending == nil {
		c.pending = make(map[string]string, stemCachePublish)
	}
	c.pending[strings.Clone(term)] = s
	// Published when the new stems are a good part of the map, so that
	// copying the map costs a constant per stem however large it grows.
	if old := c.known.Load(); len(c.pending) >= stemCachePublish && (old == nil || len(c.pending) >= len(*old)/2) {
		size := len(c.pending)
		if old != nil && len(*old)+size <= stemCacheSize {
			size += len(*old)
		} else {
			old = nil
		}
		m := make(map[string]string, size)
		if old != nil {
			maps.Copy(m, *old)
		}
		maps.Copy(m, c.pending)
		c.known.Store(&m)
		c.pending = nil
	}
	return s
}

// Package memory is an in-memory textindex backend for tests and small
// jobs. Everything is lost when the process exits.
//
// Importing the package registers the "memory" scheme with textindex.Open;
// the URL "memory://" takes no host, path or parameters.
//
// Documents are kept in an inverted index from term to the documents that
// contain it, with the term's positions in each, so a search touches only
// documents holding its rarest term and finds phrases without reading
// them.
// Relevance is BM25F (k1 = 1.2, b = 0.75) over the title, the URL's path
// terms, the headings and the content, weighted by the query's textindex.Weights, as
// SQLite FTS5's bm25() computes it, so that this backend and the embedded
// one order results alike; it is combined with PageRank as textindex.Query
// describes.
package memory

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"net/url"
	"slices"
	"sync"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/anchors"
	"github.com/linksrus/linksrus/textindex/internal/terms"
)

func init() {
	textindex.Register("memory", func(_ context.Context, u *url.URL) (textindex.Indexer, error) {
		if u.Host != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			return nil, fmt.Errorf("memory: URL %q: want plain memory://", u.Redacted())
		}
		return New(), nil
	})
}

var _ textindex.Indexer = (*Index)(nil)

// entry is one indexed document. Entries are never modified once published
// (UpdateScore replaces the entry), so iterators may read them without
// holding the index lock. Only searchable documents are published: an
// alias of another document of its ContentHash (see the textindex package
// documentation's Duplicates) is in docs but not in byOrd or the postings,
// so that a group's text is indexed, and weighs in BM25, once.
type entry struct {
	doc textindex.Document
	ord uint32 // position in Index.byOrd, or unpublished; a replaced document gets a new one
	// counts are each term's occurrences in all fields together, by
	// term ID, for retiring the entry and for excluded words; searches
	// read the postings, which hold the counts and positions too.
	counts []termCount
	// occ is what publish adds to the postings, once: the terms and
	// positions of put's split. An entry published later (an alias
	// become canonical) has none, and publish splits its text again.
	occ  []uint64
	size int // terms in all fields
	// links are the document's Links as package anchors encodes them
	// (doc.Links is nil).
	links []byte
}

// The fields of a document, scored with textindex.Weights.
const (
	fieldTitle = iota
	fieldURL
	fieldHeadings
	fieldBody
	numFields
)

// weighted returns tf, a term's frequency per field, weighted by w.
func weighted(tf [numFields]uint32, w textindex.Weights) float64 {
	return w.Title*float64(tf[fieldTitle]) + w.URL*float64(tf[fieldURL]) +
		w.Headings*float64(tf[fieldHeadings]) + w.Body*float64(tf[fieldBody])
}

// termCount is a term's occurrences in a document.
type termCount struct{ id, n uint32 }

// holds reports whether e holds term id.
func (e *entry) holds(id uint32) bool {
	_, ok := slices.BinarySearchFunc(e.counts, id, func(c termCount, id uint32) int { return cmp.Compare(c.id, id) })
	return ok
}

// A position is a term's field and its place in the field's terms (its
// terms as written, then their stems: a phrase of terms or of stems
// cannot run from one into the other, as no term is a stem), so that the
// next term of a phrase is at the next position, within one field.
const fieldShift = 30

func position(field, place int) uint32 { return uint32(field)<<fieldShift | uint32(place) }

func fieldOf(pos uint32) int { return int(pos >> fieldShift) }

// occurrences returns every term of fields (term IDs in order) with its
// position, as term<<32 | position, sorted: by term, then position.
func occurrences(fields [numFields][]uint32) []uint64 {
	n := 0
	for _, f := range fields {
		n += len(f)
	}
	occ := make([]uint64, 0, n)
	for f, ids := range fields {
		for place, id := range ids {
			occ = append(occ, uint64(id)<<32|uint64(position(f, place)))
		}
	}
	slices.Sort(occ)
	return occ
}

// countTerms returns the occurrences of each term of occ (see
// occurrences), by term ID.
func countTerms(occ []uint64) []termCount {
	distinct := 0
	for k, o := range occ {
		if k == 0 || o>>32 != occ[k-1]>>32 {
			distinct++
		}
	}
	out := make([]termCount, 0, distinct) // kept as long as the entry
	for k, o := range occ {
		if k == 0 || o>>32 != occ[k-1]>>32 {
			out = append(out, termCount{uint32(o >> 32), 0})
		}
		out[len(out)-1].n++
	}
	return out
}

// postingList is the documents holding a term, by ascending ordinal,
// the term's occurrences in each (in all its fields), and their positions:
// a search reads them along its candidates, in order. Looking a count up
// in each document's own was a map lookup per term and candidate, a third
// of a search's time, and finding a phrase in each document's terms read
// most of the index for a phrase of two common words.
type postingList struct {
	ords []uint32
	// tf is the occurrences in all fields, with inShort set when some are
	// in the title, URL or headings: most terms of a search are in none
	// of them, and this says so without reading their positions.
	tf []uint32
	// at is where each document's positions start in pos.
	at  []uint32
	pos []uint32
}

// inShort marks a posting's tf whose term is in a field other than the
// body (see postingList).
const inShort = 1 << 31

// count returns the term's occurrences in the k-th document.
func (l *postingList) count(k int) uint32 { return l.tf[k] &^ inShort }

// positions returns the term's positions in the k-th document.
func (l *postingList) positions(k int) []uint32 {
	return l.pos[l.at[k] : l.at[k]+l.count(k)]
}

// frequency returns the term's occurrences in each field of the k-th
// document.
func (l *postingList) frequency(k int) [numFields]uint32 {
	var tf [numFields]uint32
	if l.tf[k]&inShort == 0 {
		tf[fieldBody] = l.tf[k]
		return tf
	}
	for _, p := range l.positions(k) {
		tf[fieldOf(p)]++
	}
	return tf
}

// seek returns the first index of ords from on whose ordinal is not
// below ord: by galloping, since a search's candidates may be far apart
// in a common term's list.
func seek(ords []uint32, from int, ord uint32) int {
	if from >= len(ords) || ords[from] >= ord {
		return from
	}
	step := 1
	lo, hi := from, from+1
	for hi < len(ords) && ords[hi] < ord {
		lo = hi
		step *= 2
		hi = from + step
	}
	hi = min(hi, len(ords))
	// ords[lo] < ord; the answer is in (lo, hi].
	for lo+1 < hi {
		mid := int(uint(lo+hi) >> 1)
		if ords[mid] < ord {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// Index is an in-memory textindex.Indexer. The zero value is not usable;
// call New.
type Index struct {
	mu     sync.RWMutex
	closed bool

	docs   map[uuid.UUID]*entry  // indexed documents, searchable or aliases
	scores map[uuid.UUID]float64 // PageRank placeholders of documents not indexed yet
	groups map[string][]member   // ContentHash -> its documents in canonical order

	termIDs  map[string]uint32
	postings map[uint32]postingList // term ID -> the documents holding it, including dead ones
	df       map[uint32]int         // term ID -> live documents containing it
	byOrd    []*entry               // nil once the ordinal's document was replaced
	dead     int                    // nil slots in byOrd
	totalLen uint64                 // sum of the sizes of live documents
	anchors  *anchorIndex           // as of the last UpdateAnchors; replaced, never modified
}

// New returns an empty index. It is the one backend constructor not of
// the shape Open(ctx, where, opts) (see the textindex package
// documentation): there is nothing to locate, wait for or set, and nothing
// that can fail.
func New() *Index {
	return &Index{
		docs:     make(map[uuid.UUID]*entry),
		scores:   make(map[uuid.UUID]float64),
		groups:   make(map[string][]member),
		termIDs:  make(map[string]uint32),
		postings: make(map[uint32]postingList),
		df:       make(map[uint32]int),
	}
}

// Close marks the index closed; later calls fail with textindex.ErrClosed.
func (i *Index) Close() error {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.closed = true
	return nil
}

// Index inserts or replaces doc; see textindex.Indexer.
func (i *Index) Index(doc *textindex.Document) error {
	if doc == nil || doc.LinkID == uuid.Nil {
		return fmt.Errorf("memory: index: %w", textindex.ErrMissingLinkID)
	}
	if math.IsNaN(doc.PageRank) || math.IsInf(doc.PageRank, 0) {
		return fmt.Errorf("memory: index %s: %w", doc.LinkID, textindex.ErrInvalidScore)
	}
	// Splitting happens outside the lock: it is the expensive part and
	// needs no shared state.
	words := split(doc)

	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed {
		return fmt.Errorf("memory: index: %w", textindex.ErrClosed)
	}
	i.put(doc, words)
	return nil
}

// split returns the terms of doc's fields, each field's stems (see
// terms.StemMark) after its terms: a phrase of terms or of stems cannot
// run from one into the other, so the stems need no fields of their own.
func split(doc *textindex.Document) (f [numFields][]string) {
	f[fieldTitle] = terms.Split(doc.Title)
	f[fieldURL] = terms.URLTerms(doc.URL)
	f[fieldHeadings] = terms.Split(doc.Headings)
	f[fieldBody] = terms.Split(doc.Content)
	st := terms.StemmerFor(doc.Language)
	for n, ts := range f {
		f[n] = append(ts, st.Stems(ts)...)
	}
	return f
}

// termIDsOf returns the term IDs of words, giving new terms one; i.mu must
// be held for writing.
func (i *Index) termIDsOf(words [numFields][]string) (ids [numFields][]uint32) {
	for f, fw := range words {
		ids[f] = make([]uint32, len(fw))
		for n, w := range fw {
			id, ok := i.termIDs[w]
			if !ok {
				id = uint32(len(i.termIDs))
				i.termIDs[w] = id
			}
			ids[f][n] = id
		}
	}
	return ids
}

// unpublished is the ord of an entry that is not searchable.
const unpublished = math.MaxUint32

// member is a document of a duplicate group, as far as choosing the
// canonical needs.
type member struct {
	id       uuid.UUID
	url      string
	redirect bool
}

func memberOf(d *textindex.Document) member {
	return member{id: d.LinkID, url: d.URL, redirect: d.Redirect}
}

func compareMembers(a, b member) int {
	return textindex.CompareCanonical(
		&textindex.Document{LinkID: a.id, URL: a.url, Redirect: a.redirect},
		&textindex.Document{LinkID: b.id, URL: b.url, Redirect: b.redirect})
}

// put inserts or replaces doc, whose terms are words (by field, with
// their stems; see split); i.mu must be held for writing.
func (i *Index) put(doc *textindex.Document, words [numFields][]string) {
	e := &entry{doc: *doc, ord: unpublished, links: anchors.Encode(doc.Links)}
	e.doc.IndexedAt = textindex.Timestamp(doc.IndexedAt)
	e.doc.AlsoAt, e.doc.DuplicateOf, e.doc.Relevance = nil, uuid.Nil, 0
	e.doc.Links, e.doc.Anchors = nil, nil
	for _, fw := range words {
		e.size += len(fw)
	}
	e.occ = occurrences(i.termIDsOf(words))
	e.counts = countTerms(e.occ)
	old, replacing := i.docs[doc.LinkID]
	if replacing {
		e.doc.PageRank = old.doc.PageRank
	} else if s, ok := i.scores[doc.LinkID]; ok {
		e.doc.PageRank = s
		delete(i.scores, doc.LinkID)
	}
	switch {
	case replacing && memberOf(&old.doc) == memberOf(&e.doc) && old.doc.ContentHash == e.doc.ContentHash:
		// The common re-crawl: the same place in the same group (or in
		// none), so only the text is swapped.
		i.docs[doc.LinkID] = e
		if i.published(old) {
			e.doc.AlsoAt = old.doc.AlsoAt
			i.retire(old)
			i.publish(e)
		}
	default:
		if replacing {
			i.leave(old)
		}
		i.docs[doc.LinkID] = e
		if e.doc.ContentHash == "" {
			i.publish(e)
		} else {
			i.join(e)
		}
	}
	e.occ = nil // published by now, or an alias: see entry.occ
	if i.dead > 1024 && i.dead > i.live() {
		i.compact()
	}
}

// publish makes e searchable: it gets an ordinal and postings.
func (i *Index) publish(e *entry) {
	e.ord = uint32(len(i.byOrd))
	occ := e.occ
	if occ == nil {
		occ = occurrences(i.termIDsOf(split(&e.doc)))
	}
	e.occ = nil
	for k := 0; k < len(occ); {
		id := uint32(occ[k] >> 32)
		pl := i.postings[id]
		pl.ords = append(pl.ords, e.ord)
		pl.at = append(pl.at, uint32(len(pl.pos)))
		tf := uint32(0)
		for ; k < len(occ) && uint32(occ[k]>>32) == id; k++ {
			p := uint32(occ[k])
			pl.pos = append(pl.pos, p)
			if fieldOf(p) != fieldBody {
				tf |= inShort
			}
			tf++
		}
		pl.tf = append(pl.tf, tf)
		i.postings[id] = pl
		i.df[id]++
	}
	i.byOrd = append(i.byOrd, e)
	i.totalLen += uint64(e.size)
}

// published reports whether e is the searchable version of its document.
func (i *Index) published(e *entry) bool {
	return e.ord != unpublished && int(e.ord) < len(i.byOrd) && i.byOrd[e.ord] == e
}

// live is the number of searchable documents.
func (i *Index) live() int { return len(i.byOrd) - i.dead }

// join adds e, not published, to the group of its ContentHash.
func (i *Index) join(e *entry) {
	h, m := e.doc.ContentHash, memberOf(&e.doc)
	g := i.groups[h]
	pos, _ := slices.BinarySearchFunc(g, m, compareMembers)
	g = slices.Insert(g, pos, m)
	i.groups[h] = g
	if pos == 0 && len(g) > 1 {
		// e displaces the canonical.
		if prev := i.docs[g[1].id]; i.published(prev) {
			i.retire(prev)
		}
	}
	if pos <= textindex.MaxAlsoAt {
		i.refreshCanonical(h)
	}
}

// leave takes old, being replaced, out of the index and of its group,
// whose next member becomes canonical if old was.
func (i *Index) leave(old *entry) {
	if i.published(old) {
		i.retire(old)
	}
	h := old.doc.ContentHash
	if h == "" {
		return
	}
	g := i.groups[h]
	pos := slices.IndexFunc(g, func(m member) bool { return m.id == old.doc.LinkID })
	if pos < 0 {
		return
	}
	g = slices.Delete(g, pos, pos+1)
	if len(g) == 0 {
		delete(i.groups, h)
		return
	}
	i.groups[h] = g
	if pos <= textindex.MaxAlsoAt {
		i.refreshCanonical(h)
	}
}

// refreshCanonical publishes the canonical of group h, if it is not yet,
// with its AlsoAt up to date. Entries being immutable once published, the
// canonical's is replaced by a copy.
func (i *Index) refreshCanonical(h string) {
	g := i.groups[h]
	c := i.docs[g[0].id]
	ne := *c
	ne.doc.AlsoAt = nil
	for _, m := range g[1:min(len(g), textindex.MaxAlsoAt+1)] {
		ne.doc.AlsoAt = append(ne.doc.AlsoAt, m.url)
	}
	i.docs[ne.doc.LinkID] = &ne
	if i.published(c) {
		i.byOrd[ne.ord] = &ne
		return
	}
	i.publish(&ne)
}

// retire removes old from the live set. Its postings stay until the next
// compaction; searches skip them because byOrd no longer points to an entry.
func (i *Index) retire(old *entry) {
	i.byOrd[old.ord] = nil
	i.dead++
	for _, c := range old.counts {
		if i.df[c.id]--; i.df[c.id] == 0 {
			delete(i.df, c.id)
		}
	}
	i.totalLen -= uint64(old.size)
}

// compact renumbers the live documents densely and rebuilds the postings
// without the dead ordinals, so replaced documents do not cost memory or
// search time forever.
func (i *Index) compact() {
	live := make([]*entry, 0, i.live())
	remap := make([]uint32, len(i.byOrd))
	for _, e := range i.byOrd {
		if e == nil {
			continue
		}
		ne := *e
		ne.ord = uint32(len(live))
		remap[e.ord] = ne.ord
		live = append(live, &ne)
		i.docs[ne.doc.LinkID] = &ne
	}
	for id, list := range i.postings {
		var kept postingList
		for n, ord := range list.ords {
			if i.byOrd[ord] != nil {
				kept.ords, kept.tf = append(kept.ords, remap[ord]), append(kept.tf, list.tf[n])
				kept.at = append(kept.at, uint32(len(kept.pos)))
				kept.pos = append(kept.pos, list.positions(n)...)
			}
		}
		if len(kept.ords) == 0 {
			delete(i.postings, id)
			continue
		}
		i.postings[id] = kept
	}
	i.byOrd = live
	i.dead = 0
}

// FindByID returns a copy of the document; see textindex.Indexer.
func (i *Index) FindByID(linkID uuid.UUID) (*textindex.Document, error) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	if i.closed {
		return nil, fmt.Errorf("memory: find %s: %w", linkID, textindex.ErrClosed)
	}
	e, ok := i.docs[linkID]
	if !ok {
		return nil, fmt.Errorf("memory: find %s: %w", linkID, textindex.ErrNotFound)
	}
	d := e.doc
	d.AlsoAt = slices.Clone(d.AlsoAt)
	if g := i.groups[d.ContentHash]; d.ContentHash != "" && !i.published(e) && len(g) > 0 {
		// An alias (perhaps a canonical once: its AlsoAt is stale).
		d.DuplicateOf, d.AlsoAt = g[0].id, nil
	} else {
		d.Anchors = i.anchors.textsOf(linkID)
	}
	links, err := anchors.Links(e.links)
	if err != nil {
		return nil, fmt.Errorf("memory: find %s: %w", linkID, err)
	}
	d.Links = links
	return &d, nil
}

// UpdateScore sets the document's PageRank, or records it for a document
// not indexed yet; see textindex.Indexer.
func (i *Index) UpdateScore(linkID uuid.UUID, score float64) error {
	if linkID == uuid.Nil {
		return fmt.Errorf("memory: update score: %w", textindex.ErrMissingLinkID)
	}
	if math.IsNaN(score) || math.IsInf(score, 0) {
		return fmt.Errorf("memory: update score of %s: %w", linkID, textindex.ErrInvalidScore)
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed {
		return fmt.Errorf("memory: update score of %s: %w", linkID, textindex.ErrClosed)
	}
	e, ok := i.docs[linkID]
	if !ok {
		i.scores[linkID] = score
		return nil
	}
	// Copy on write: iterators may be reading the old entry.
	ne := *e
	ne.doc.PageRank = score
	i.docs[linkID] = &ne
	if i.published(e) {
		i.byOrd[ne.ord] = &ne
	}
	return nil
}

// Count implements textindex.Counter.
func (i *Index) Count(context.Context) (uint64, error) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	if i.closed {
		return 0, fmt.Errorf("memory: count: %w", textindex.ErrClosed)
	}
	return uint64(i.live()), nil
}

// UpdateScores sets the PageRank of many documents, as UpdateScore does
// for each (ids[i] gets scores[i]): all, or none if any argument is bad.
func (i *Index) UpdateScores(ids []uuid.UUID, scores []float64) error {
	if len(ids) != len(scores) {
		return fmt.Errorf("memory: update scores: %d IDs for %d scores", len(ids), len(scores))
	}
	for n, id := range ids {
		if id == uuid.Nil {
			return fmt.Errorf("memory: update scores: %w", textindex.ErrMissingLinkID)
		}
		if math.IsNaN(scores[n]) || math.IsInf(scores[n], 0) {
			return fmt.Errorf("memory: update scores: %s: %w", id, textindex.ErrInvalidScore)
		}
	}
	for n, id := range ids {
		if err := i.UpdateScore(id, scores[n]); err != nil {
			return err
		}
	}
	return nil
}

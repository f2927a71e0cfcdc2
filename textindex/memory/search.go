package memory

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// BM25 parameters, the customary values (also SQLite FTS5's).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

type hit struct {
	e         *entry
	score     float64 // relevance + prior
	relevance float64
}

// Search runs q; see textindex.Indexer and textindex.Query.
func (i *Index) Search(q textindex.Query) (textindex.Iterator, error) {
	return i.SearchContext(context.Background(), q)
}

// SearchContext is Search ending when ctx does (textindex.ContextSearcher):
// scoring looks at ctx every few thousand candidates.
func (i *Index) SearchContext(ctx context.Context, q textindex.Query) (textindex.Iterator, error) {
	var search terms.Search
	switch q.Type {
	case textindex.QueryTypeMatch:
		search.Words, _ = terms.Query(q.Expression, false)
	case textindex.QueryTypePhrase:
		words, _ := terms.Query(q.Expression, true)
		if len(words) > 1 {
			search.Phrases = [][]string{words}
		} else {
			search.Words = words
		}
	case textindex.QueryTypeSearch:
		search, _ = terms.ParseSearch(q.Expression)
	default:
		return nil, fmt.Errorf("memory: search: %w: %v", textindex.ErrUnknownQueryType, q.Type)
	}

	weights, err := textindex.WeightsOf(q)
	if err != nil {
		return nil, fmt.Errorf("memory: search: %w", err)
	}
	i.mu.RLock()
	defer i.mu.RUnlock()
	if i.closed {
		return nil, fmt.Errorf("memory: search: %w", textindex.ErrClosed)
	}
	matched, err := i.match(ctx, search, q.Language, weights)
	if err != nil {
		return nil, fmt.Errorf("memory: search %q: %w", q.Expression, err)
	}
	hits := hitHeap(matched)
	// A heap rather than a sort: callers usually read a page or two, and
	// heapifying is linear where sorting a broad query's hits is not.
	heap.Init(&hits)
	it := &iterator{total: uint64(len(hits)), hits: hits, urlsOnly: q.URLsOnly, anchors: i.anchors}
	for n := uint64(0); n < q.Offset && len(it.hits) > 0; n++ {
		heap.Pop(&it.hits)
	}
	return it, nil
}

// match returns the live documents matching the query, scored as SQLite
// FTS5's bm25 scores them (BM25F over the fields, see textindex.Weights),
// so that the two backends order results alike. Every word and every
// phrase of the query is a unit (terms.Unit) a document must hold, as
// written or as stems; each is two phrases of the bm25 sum, the exact one
// weighed with the fields' weights, the stems' with Weights.Stem times
// them. A phrase's frequency in a document is the weighted sum of its
// occurrences in each field (a phrase matches within one field); its IDF
// is ln((N - n + 0.5) / (n + 0.5)), at least 1e-6, of the N searchable
// documents and the n that hold it; the length is the document's terms in
// all fields, stems included. The anchor text's BM25 is added (see
// anchorScorer). The caller holds the read lock.
func (i *Index) match(ctx context.Context, q terms.Search, lang string, w textindex.Weights) ([]hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !q.Positive() {
		return nil, nil
	}
	type phrase struct {
		ids    []uint32
		unit   int
		weight float64 // of its occurrences, beside the fields' weights
	}
	var phrases []phrase
	units := q.Units(terms.StemmerFor(lang))
	anchor := i.anchors.scorer(units, w)
	unitCands := make([][]uint32, len(units))
	for u, unit := range units {
		var held []uint32 // the documents holding the terms of a form
		holdable := false // some form's terms are all in the index
	forms:
		for _, form := range []struct {
			terms  []string
			weight float64
		}{{unit.Exact, 1}, {unit.Stems, w.Stem}} {
			if len(form.terms) == 0 {
				continue // stop words only: they have no stems
			}
			ids := make([]uint32, len(form.terms))
			for n, word := range form.terms {
				id, ok := i.termIDs[word]
				if !ok {
					continue forms // a term no document has: this form matches nothing
				}
				ids[n] = id
			}
			phrases = append(phrases, phrase{ids, u, form.weight})
			held, holdable = union(held, i.holdingAll([][]uint32{ids})), true
		}
		if !holdable {
			return nil, nil // no document holds the unit in any form
		}
		unitCands[u] = held
	}
	slices.SortFunc(unitCands, func(a, b []uint32) int { return len(a) - len(b) })
	cands := intersect(unitCands)

	var excluded []uint32
	for _, word := range q.Exclude {
		if id, ok := i.termIDs[word]; ok {
			excluded = append(excluded, id)
		}
	}

	live := float64(i.live())
	avgLen := float64(i.totalLen) / math.Max(live, 1)
	idf := make([]float64, len(phrases))
	// Where each phrase of several words occurs: every document holding
	// its words is read once, for its IDF, and the candidates then find
	// their occurrences here.
	occurs := make([][]occurrence, len(phrases))
	for n, p := range phrases {
		held := i.df[p.ids[0]]
		if len(p.ids) > 1 {
			occurs[n] = i.occurrences(p.ids)
			held = len(occurs[n])
		}
		idf[n] = math.Max(math.Log((live-float64(held)+0.5)/(float64(held)+0.5)), 1e-6)
	}
	// Per phrase, the first occurrence (or posting, for a phrase of one
	// term) not behind the candidate.
	next := make([]int, len(phrases))
	lists := make([]postingList, len(phrases))
	for k, p := range phrases {
		if len(p.ids) == 1 {
			lists[k] = i.postings[p.ids[0]]
		}
	}

	hits := make([]hit, 0, len(cands))
	tf := make([]float64, len(phrases))
	found := make([]bool, len(units))
candidates:
	for n, ord := range cands {
		if n%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		e := i.byOrd[ord]
		if e == nil {
			continue
		}
		clear(found)
		for k, p := range phrases {
			var f [numFields]uint32
			if len(p.ids) == 1 {
				l := lists[k]
				next[k] = seek(l.ords, next[k], ord)
				if next[k] < len(l.ords) && l.ords[next[k]] == ord {
					f = l.frequency(next[k])
				}
			} else {
				// Both ascending: walk the phrase's occurrences along.
				o := occurs[k]
				for next[k] < len(o) && o[next[k]].ord < ord {
					next[k]++
				}
				if next[k] < len(o) && o[next[k]].ord == ord {
					f = o[next[k]].tf
				}
			}
			tf[k] = p.weight * weighted(f, w)
			if f != ([numFields]uint32{}) {
				found[p.unit] = true
			}
		}
		for _, ok := range found {
			if !ok {
				continue candidates // its words, not the phrase
			}
		}
		if !i.accepts(e, q, excluded) {
			continue
		}
		// Summed in one fixed order, so that the scores of equally
		// relevant documents are bit-identical, which the LinkID
		// tie-break and so stable paging rely on.
		var s float64
		norm := bm25K1 * (1 - bm25B + bm25B*float64(e.size)/math.Max(avgLen, 1))
		for k := range phrases {
			s += idf[k] * tf[k] * (bm25K1 + 1) / (tf[k] + norm)
		}
		s += anchor.score(e.doc.LinkID)
		hits = append(hits, hit{e: e, score: s + w.Prior(e.doc.PageRank), relevance: s})
	}
	return hits, nil
}

// occurrence is a phrase's occurrences in one document, by field.
type occurrence struct {
	ord uint32
	tf  [numFields]uint32
}

// occurrences returns the live documents where phrase occurs (within a
// field), in ordinal order, with its occurrences in each field, found
// from the positions of its terms in their postings.
func (i *Index) occurrences(phrase []uint32) []occurrence {
	var out []occurrence
	lists := make([]postingList, len(phrase))
	next := make([]int, len(phrase))
	positions := make([][]uint32, len(phrase))
	for n, id := range phrase {
		lists[n] = i.postings[id]
	}
	for _, ord := range i.holdingAll([][]uint32{phrase}) {
		if i.byOrd[ord] == nil {
			continue
		}
		for n := range phrase {
			next[n] = seek(lists[n].ords, next[n], ord) // there: ord holds every term
			positions[n] = lists[n].positions(next[n])
		}
		if tf := countPhrase(positions); tf != ([numFields]uint32{}) {
			out = append(out, occurrence{ord, tf})
		}
	}
	return out
}

// holdingAll returns the ordinals of the documents holding every term of
// phrases, somewhere. The result may be a postings list itself: it is only
// read.
func (i *Index) holdingAll(phrases [][]uint32) []uint32 {
	var lists [][]uint32
	seen := make(map[uint32]bool)
	for _, p := range phrases {
		for _, id := range p {
			if !seen[id] {
				seen[id] = true
				lists = append(lists, i.postings[id].ords)
			}
		}
	}
	slices.SortFunc(lists, func(a, b []uint32) int { return len(a) - len(b) })
	return intersect(lists)
}

// accepts applies the query's exclusions and sites to a document holding
// every word and phrase of the query.
func (i *Index) accepts(e *entry, q terms.Search, excluded []uint32) bool {
	for _, id := range excluded {
		if e.holds(id) {
			return false
		}
	}
	if len(q.Sites) > 0 {
		place, ok := terms.PlaceOf(e.doc.URL)
		if !ok || !slices.ContainsFunc(q.Sites, func(s terms.Site) bool { return s.Holds(place) }) {
			return false
		}
	}
	return true
}

// union returns the ordinals present in either of a and b, ascending;
// both are ascending. The result may be a or b itself: it is only read.
func union(a, b []uint32) []uint32 {
	switch {
	case len(a) == 0:
		return b
	case len(b) == 0:
		return a
	}
	out := make([]uint32, 0, max(len(a), len(b)))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// intersect returns the ordinals present in every list; lists are
// ascending and sorted shortest first, so the result is at most as long as
// the first. The result may be lists[0] itself: it is only read.
func intersect(lists [][]uint32) []uint32 {
	if len(lists) == 1 {
		return lists[0]
	}
	out := slices.Clone(lists[0])
	for _, l := range lists[1:] {
		kept := out[:0]
		j := 0
		for _, ord := range out {
			for j < len(l) && l[j] < ord {
				j++
			}
			if j < len(l) && l[j] == ord {
				kept = append(kept, ord)
			}
		}
		out = kept
		if len(out) == 0 {
			break
		}
	}
	return out
}

// countPhrase returns, by field, how many times a phrase occurs whose
// terms' positions are lists (ascending each): the places p of its first
// term where the next is at p+1, and so on. It consumes lists[1:] (the
// positions already passed are cut off), which its caller refills for
// each document.
func countPhrase(lists [][]uint32) [numFields]uint32 {
	var tf [numFields]uint32
	rest := lists[1:]
runs:
	for _, p := range lists[0] {
		for n, l := range rest {
			want := p + uint32(n) + 1
			for len(l) > 0 && l[0] < want {
				l = l[1:]
			}
			rest[n] = l
			if len(l) == 0 {
				break runs // no later run either
			}
			if l[0] != want {
				continue runs
			}
		}
		tf[fieldOf(p)]++
	}
	return tf
}

// hitHeap orders hits best first: higher score, then lower LinkID.
type hitHeap []hit

func (h hitHeap) Len() int      { return len(h) }
func (h hitHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h hitHeap) Less(a, b int) bool {
	if h[a].score != h[b].score {
		return h[a].score > h[b].score
	}
	return linkgraph.CompareIDs(h[a].e.doc.LinkID, h[b].e.doc.LinkID) < 0
}
func (h *hitHeap) Push(x any) { *h = append(*h, x.(hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// iterator pops hits off a heap in result order. Entries are immutable, so
// it needs no lock.
type iterator struct {
	hits     hitHeap
	cur      *entry
	rel      float64
	total    uint64
	urlsOnly bool         // Query.URLsOnly
	anchors  *anchorIndex // as the search began
}

func (it *iterator) Next() bool {
	if len(it.hits) == 0 {
		it.cur = nil
		return false
	}
	h := heap.Pop(&it.hits).(hit)
	it.cur, it.rel = h.e, h.relevance
	return true
}

func (it *iterator) Document() *textindex.Document {
	if it.cur == nil {
		return nil
	}
	d := it.cur.doc
	d.Relevance = it.rel
	if it.urlsOnly {
		d.Title, d.Content, d.Headings, d.AlsoAt = "", "", "", nil
	} else {
		d.AlsoAt = slices.Clone(d.AlsoAt)
		d.Anchors = it.anchors.textsOf(d.LinkID)
	}
	return &d
}

func (it *iterator) Error() error       { return nil }
func (it *iterator) TotalCount() uint64 { return it.total }

func (it *iterator) Close() error {
	it.hits, it.cur = nil, nil
	return nil
}

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
	score     float64 // relevance + PageRank
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

	i.mu.RLock()
	defer i.mu.RUnlock()
	if i.closed {
		return nil, fmt.Errorf("memory: search: %w", textindex.ErrClosed)
	}
	matched, err := i.match(ctx, search)
	if err != nil {
		return nil, fmt.Errorf("memory: search %q: %w", q.Expression, err)
	}
	hits := hitHeap(matched)
	// A heap rather than a sort: callers usually read a page or two, and
	// heapifying is linear where sorting a broad query's hits is not.
	heap.Init(&hits)
	it := &iterator{total: uint64(len(hits)), hits: hits}
	for n := uint64(0); n < q.Offset && len(it.hits) > 0; n++ {
		heap.Pop(&it.hits)
	}
	return it, nil
}

// match returns the live documents matching the query, scored. The
// caller holds the read lock.
func (i *Index) match(ctx context.Context, q terms.Search) ([]hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !q.Positive() {
		return nil, nil
	}
	// Every required term: the words, then the phrases' words.
	required := slices.Clone(q.Words)
	for _, p := range q.Phrases {
		required = append(required, p...)
	}
	termID := func(w string) (uint32, bool) { id, ok := i.termIDs[w]; return id, ok }
	var seq []uint32 // required term IDs in query order
	var lists [][]uint32
	seen := make(map[uint32]bool)
	for _, w := range required {
		id, ok := termID(w)
		if !ok {
			return nil, nil // a term no document has: nothing can match
		}
		seq = append(seq, id)
		if !seen[id] {
			seen[id] = true
			lists = append(lists, i.postings[id])
		}
	}
	phrases := make([][]uint32, len(q.Phrases))
	for n, p := range q.Phrases {
		for _, w := range p {
			id, _ := termID(w)
			phrases[n] = append(phrases[n], id)
		}
	}
	var excluded []uint32
	for _, w := range q.Exclude {
		if id, ok := termID(w); ok {
			excluded = append(excluded, id)
		}
	}
	slices.SortFunc(lists, func(a, b []uint32) int { return len(a) - len(b) })
	cands := intersect(lists)

	// A slice, not a map: summing in one fixed order keeps the scores of
	// equally relevant documents bit-identical, which the LinkID
	// tie-break and so stable paging rely on.
	type weight struct {
		id  uint32
		idf float64
	}
	live := float64(i.live())
	avgLen := float64(i.totalLen) / math.Max(live, 1)
	weights := make([]weight, 0, len(seen))
	for _, id := range seq {
		if seen[id] {
			seen[id] = false
			n := float64(i.df[id])
			weights = append(weights, weight{id, math.Log(1 + (live-n+0.5)/(n+0.5))})
		}
	}

	var hits []hit
	for n, ord := range cands {
		if n%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		e := i.byOrd[ord]
		if e == nil || !i.accepts(e, q, phrases, excluded) {
			continue
		}
		var s float64
		norm := bm25K1 * (1 - bm25B + bm25B*float64(len(e.tokens))/math.Max(avgLen, 1))
		for _, w := range weights {
			tf := float64(e.tf[w.id])
			s += w.idf * tf * (bm25K1 + 1) / (tf + norm)
		}
		hits = append(hits, hit{e: e, score: s + e.doc.PageRank, relevance: s})
	}
	return hits, nil
}

// accepts applies the query's phrases, exclusions and sites to a document
// holding every required term.
func (i *Index) accepts(e *entry, q terms.Search, phrases [][]uint32, excluded []uint32) bool {
	for _, p := range phrases {
		if !containsRun(e.tokens, p) {
			return false
		}
	}
	for _, id := range excluded {
		if e.tf[id] > 0 {
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

// intersect returns the ordinals present in every list; lists are
// ascending and sorted shortest first, so the result is at most as long as
// the first.
func intersect(lists [][]uint32) []uint32 {
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

// containsRun reports whether seq occurs contiguously in tokens.
func containsRun(tokens, seq []uint32) bool {
	for p := 0; p+len(seq) <= len(tokens); p++ {
		if slices.Equal(tokens[p:p+len(seq)], seq) {
			return true
		}
	}
	return false
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
	hits  hitHeap
	cur   *entry
	rel   float64
	total uint64
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
	d.AlsoAt = slices.Clone(d.AlsoAt)
	return &d
}

func (it *iterator) Error() error       { return nil }
func (it *iterator) TotalCount() uint64 { return it.total }

func (it *iterator) Close() error {
	it.hits, it.cur = nil, nil
	return nil
}

package memory

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/anchors"
	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// anchorIndex is the anchor text of the searchable documents as of the
// last UpdateAnchors, an index of its own, as the embedded backend's
// anchors_fts table is: its terms as written then their stems, its own
// term numbers, postings, and length, which its BM25 reads. It is never
// modified once built.
type anchorIndex struct {
	byID     map[uuid.UUID]int32 // a canonical document's row
	rows     []anchorRow
	termIDs  map[string]uint32
	postings map[uint32][]int32 // ascending rows
	totalLen int
}

type anchorRow struct {
	texts []string
	terms []uint32 // as written, then from stems on their stems
	stems int
}

// UpdateAnchors recomputes every document's anchor text; see
// textindex.Indexer. It is computed under the read lock, so searches go
// on meanwhile (writes wait), and replaces the last one at once.
func (i *Index) UpdateAnchors(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: update anchors: %w", err)
	}
	i.mu.RLock()
	a, err := i.buildAnchors(ctx)
	i.mu.RUnlock()
	if err != nil {
		return fmt.Errorf("memory: update anchors: %w", err)
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed {
		return fmt.Errorf("memory: update anchors: %w", textindex.ErrClosed)
	}
	// Writes made between the two locks are in the next one, as in the
	// other backends, which read the links in a snapshot of their own.
	i.anchors = a
	return nil
}

// buildAnchors computes the anchor index of the documents; i.mu must be
// held.
func (i *Index) buildAnchors(ctx context.Context) (*anchorIndex, error) {
	if i.closed {
		return nil, textindex.ErrClosed
	}
	c := anchors.NewCollector[uuid.UUID]()
	for id, e := range i.docs {
		c.Document(e.doc.URL, i.canonicalOf(id, e))
	}
	// The links of each group's canonical (see Collector.Links).
	n := 0
	for id, e := range i.docs {
		if len(e.links) == 0 || i.canonicalOf(id, e) != id {
			continue
		}
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if err := c.Links(id, e.links); err != nil {
			return nil, fmt.Errorf("links of %s: %w", id, err)
		}
	}
	a := &anchorIndex{byID: make(map[uuid.UUID]int32), termIDs: make(map[string]uint32), postings: make(map[uint32][]int32)}
	type found struct {
		id    uuid.UUID
		texts []string
	}
	var all []found
	_ = c.Each(func(id uuid.UUID, texts []string) error {
		all = append(all, found{id, texts})
		return nil
	})
	// Rows in a fixed order, so that postings come out ascending.
	slices.SortFunc(all, func(x, y found) int { return slices.Compare(x.id[:], y.id[:]) })
	for _, f := range all {
		e := i.docs[f.id]
		if e == nil {
			continue
		}
		words := terms.Split(anchors.Join(f.texts))
		stems := terms.StemmerFor(e.doc.Language).Stems(words)
		row := anchorRow{texts: f.texts, stems: len(words)}
		r := int32(len(a.rows))
		for _, w := range append(words, stems...) {
			id, ok := a.termIDs[w]
			if !ok {
				id = uint32(len(a.termIDs))
				a.termIDs[w] = id
			}
			row.terms = append(row.terms, id)
			if p := a.postings[id]; len(p) == 0 || p[len(p)-1] != r {
				a.postings[id] = append(p, r)
			}
		}
		a.totalLen += len(row.terms)
		a.byID[f.id] = r
		a.rows = append(a.rows, row)
	}
	return a, nil
}

// canonicalOf is the LinkID of the canonical of e's duplicate group: the
// document that is searchable for it.
func (i *Index) canonicalOf(id uuid.UUID, e *entry) uuid.UUID {
	if e.doc.ContentHash == "" {
		return id
	}
	if g := i.groups[e.doc.ContentHash]; len(g) > 0 {
		return g[0].id
	}
	return id
}

// textsOf returns the anchor text of document id.
func (a *anchorIndex) textsOf(id uuid.UUID) []string {
	if a == nil {
		return nil
	}
	if r, ok := a.byID[id]; ok {
		return slices.Clone(a.rows[r].texts)
	}
	return nil
}

// anchorScorer scores the anchor text of a search's hits that holds every
// word and phrase of the query (as written or as stems): BM25 of the
// query's phrases (the same as the fields', each with its weight) over
// the anchor rows, as SQLite FTS5's bm25 over the embedded backend's
// anchors_fts with the column weights Anchor and Stem × Anchor computes
// it.
type anchorScorer struct {
	a       *anchorIndex
	phrases []anchorPhrase
	avgLen  float64
	// held has a bit set for each row that holds the first term of some
	// form of every unit of the query: the rows that may hold it all,
	// found from the postings once, so that a hit without one costs a
	// lookup rather than a scan of its row.
	held []uint64
	// per hit, reused: a search scores its hits one at a time
	tf    []float64
	found []bool
}

type anchorPhrase struct {
	ids    []uint32 // nil: a term no anchor text holds
	unit   int      // of the query (terms.Unit)
	weight float64  // Anchor, or Stem × Anchor for stems
	stems  bool
	idf    float64
}

// scorer returns the scorer of the phrases of a search (forms of its
// units, as match builds them), nil when anchor text weighs nothing.
func (a *anchorIndex) scorer(units []terms.Unit, w textindex.Weights) *anchorScorer {
	if a == nil || len(a.rows) == 0 || w.Anchor == 0 || len(units) == 0 {
		return nil
	}
	s := &anchorScorer{a: a, avgLen: float64(a.totalLen) / float64(len(a.rows)), found: make([]bool, len(units))}
	n := float64(len(a.rows))
	for unit, u := range units {
		for _, form := range []struct {
			terms  []string
			weight float64
			stems  bool
		}{{u.Exact, w.Anchor, false}, {u.Stems, w.Stem * w.Anchor, true}} {
			if len(form.terms) == 0 {
				continue
			}
			p := anchorPhrase{unit: unit, weight: form.weight, stems: form.stems}
			ids := make([]uint32, len(form.terms))
			known := true
			for k, t := range form.terms {
				id, ok := a.termIDs[t]
				if !ok {
					known = false
					break
				}
				ids[k] = id
			}
			held := 0
			if known {
				p.ids = ids
				held = a.holding(ids, form.stems)
			}
			p.idf = math.Max(math.Log((n-float64(held)+0.5)/(float64(held)+0.5)), 1e-6)
			s.phrases = append(s.phrases, p)
		}
	}
	s.tf = make([]float64, len(s.phrases))
	for unit := range units {
		bits := make([]uint64, (len(a.rows)+63)/64)
		for _, p := range s.phrases {
			if p.unit != unit || p.ids == nil {
				continue
			}
			for _, r := range a.postings[p.ids[0]] {
				bits[r/64] |= 1 << (r % 64)
			}
		}
		if s.held == nil {
			s.held = bits
			continue
		}
		for k := range s.held {
			s.held[k] &= bits[k]
		}
	}
	return s
}

// holding counts the rows where the phrase ids occurs.
func (a *anchorIndex) holding(ids []uint32, stems bool) int {
	if len(ids) == 1 {
		return len(a.postings[ids[0]])
	}
	n := 0
	for _, r := range a.postings[ids[0]] {
		if a.rows[r].count(ids, stems) > 0 {
			n++
		}
	}
	return n
}

// count returns the occurrences of the phrase ids among the row's terms as
// written, or among its stems.
func (r *anchorRow) count(ids []uint32, stems bool) int {
	terms := r.terms[:r.stems]
	if stems {
		terms = r.terms[r.stems:]
	}
	return countRuns(terms, ids)
}

// countRuns returns how many times seq occurs contiguously in tokens.
func countRuns(tokens, seq []uint32) int {
	n := 0
	for p := 0; p+len(seq) <= len(tokens); p++ {
		// The first term alone rules out most places, without a call.
		if tokens[p] == seq[0] && slices.Equal(tokens[p+1:p+len(seq)], seq[1:]) {
			n++
		}
	}
	return n
}

// score returns the anchor text's part of the relevance of document id.
func (s *anchorScorer) score(id uuid.UUID) float64 {
	if s == nil {
		return 0
	}
	r, ok := s.a.byID[id]
	if !ok || s.held[r/64]&(1<<(r%64)) == 0 {
		return 0
	}
	row := &s.a.rows[r]
	tf, found := s.tf, s.found
	clear(tf)
	clear(found)
	for k, p := range s.phrases {
		if p.ids == nil {
			continue
		}
		if c := row.count(p.ids, p.stems); c > 0 {
			tf[k], found[p.unit] = p.weight*float64(c), true
		}
	}
	for _, ok := range found {
		if !ok {
			return 0 // it holds only part of the query
		}
	}
	norm := bm25K1 * (1 - bm25B + bm25B*float64(len(row.terms))/math.Max(s.avgLen, 1))
	var total float64
	for k, p := range s.phrases {
		total += p.idf * tf[k] * (bm25K1 + 1) / (tf[k] + norm)
	}
	return total
}

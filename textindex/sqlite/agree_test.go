package sqlite

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/memory"
)

// TestRelevanceAgreesWithMemory: the memory backend computes what FTS5's
// bm25 computes, fields (headings too), word forms and anchor text
// included, so that the two order results alike: over a random corpus
// whose pages link to each other, every query gives the same documents
// with the same relevance in both (to the last bits, which the order of a
// sum's terms changes).
func TestRelevanceAgreesWithMemory(t *testing.T) {
	ctx := context.Background()
	words := strings.Fields("vacuum vacuuming table tables index indexes key keys foreign psql terminal query queries the of run running")
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	docs := make([]*textindex.Document, 60)
	for n := range docs {
		docs[n] = &textindex.Document{
			LinkID:    uuid.New(),
			URL:       fmt.Sprintf("https://example.com/%s-%d.html", words[n%len(words)], n),
			Title:     text(1 + rng.IntN(3)),
			Content:   text(5 + rng.IntN(40)),
			IndexedAt: time.Now().UTC().Truncate(time.Microsecond),
		}
		// Half the pages have headings, one or two, which their text
		// holds too, as the crawler keeps it.
		if rng.IntN(2) == 0 {
			var hs []string
			for range 1 + rng.IntN(2) {
				hs = append(hs, strings.TrimSpace(text(1+rng.IntN(3))))
			}
			docs[n].Headings = strings.Join(hs, "\n")
			docs[n].Content = docs[n].Headings + "\n" + docs[n].Content
		}
	}
	for _, d := range docs {
		for range rng.IntN(8) {
			d.Links = append(d.Links, textindex.Link{URL: docs[rng.IntN(len(docs))].URL, Text: text(1 + rng.IntN(3))})
		}
	}
	sq, mem := openTest(t), memory.New()
	for _, idx := range []textindex.Indexer{sq, mem} {
		for _, d := range docs {
			if err := idx.Index(d); err != nil {
				t.Fatal(err)
			}
		}
		if err := idx.UpdateAnchors(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"vacuum", "vacuuming tables", "foreign key", `"foreign key"`, "psql terminal", "the", "running queries -index"} {
		for _, w := range []textindex.Weights{{Title: 10, URL: 5, Body: 1, Stem: 0.2}, {Title: 10, URL: 5, Headings: 3, Body: 1, Stem: 0.2},
			{}, {Title: 1, Body: 1, Stem: 0.5, Anchor: 7}, {Headings: 8, Body: 1, Stem: 0.5}} {
			query := textindex.Query{Type: textindex.QueryTypeSearch, Expression: q, Weights: w}
			a, b := results(t, sq, query), results(t, mem, query)
			if len(a) != len(b) || len(a) == 0 {
				t.Fatalf("%q %+v: %d results in sqlite, %d in memory", q, w, len(a), len(b))
			}
			byID := make(map[uuid.UUID]result)
			for _, r := range b {
				byID[r.id] = r
			}
			for k, r := range a {
				m, ok := byID[r.id]
				// The sums are the same but for the order of their terms:
				// the last bits may differ, and so the order of two
				// documents as close as that.
				if !ok || !close(r.rel, m.rel) || !close(r.rel, b[k].rel) || !slices.Equal(r.anchors, m.anchors) {
					t.Errorf("%q %+v: result %d: sqlite %+v, memory %+v (at %d: %+v)", q, w, k, r, m, k, b[k])
				}
			}
		}
	}
}

type result struct {
	id      uuid.UUID
	rel     float64
	anchors []string
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), 1) }

// results returns a search's results: IDs, relevance and anchor text.
func results(t *testing.T, idx textindex.Indexer, q textindex.Query) []result {
	t.Helper()
	it, err := idx.Search(q)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []result
	for it.Next() {
		d := it.Document()
		out = append(out, result{d.LinkID, d.Relevance, d.Anchors})
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return out
}

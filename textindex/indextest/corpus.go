package indextest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

// corpus generates documents and queries that look like text to an index:
// word frequencies follow Zipf's law over a fixed vocabulary, so some terms
// occur in most documents and most terms in few, as in real pages. It is
// deterministic, so runs and backends are compared on the same data.
type corpus struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	vocab []string
	// links draws each document's links, from a generator of its own, so
	// that the rest of the corpus is what it was before documents had
	// links.
	links *rand.Rand
}

const vocabSize = 30000

func newCorpus(seed uint64) *corpus {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	syllables := strings.Fields("ka to ri mu se na po li ve da gor shin tal bre qua nix ul om fe zu")
	vocab := make([]string, 0, vocabSize)
	seen := make(map[string]bool)
	for len(vocab) < vocabSize {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syllables[rng.IntN(len(syllables))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	links := rand.New(rand.NewPCG(seed^0x5bd1e995, seed))
	return &corpus{rng: rng, zipf: rand.NewZipf(rng, 1.1, 2, vocabSize-1), vocab: vocab, links: links}
}

func (c *corpus) word() string { return c.vocab[c.zipf.Uint64()] }

func (c *corpus) words(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.word())
	}
	return b.String()
}

// doc returns a document of about 150 words (a short article's worth of
// extracted text) with a 4 to 8 word title, and its content hash, as a
// crawled page has (a backend that leaves duplicates out when reading
// pays for it on every hit).
func (c *corpus) doc(n int) *textindex.Document {
	var id uuid.UUID
	for i := range id {
		id[i] = byte(c.rng.Uint32())
	}
	title := c.words(4 + c.rng.IntN(5))
	content := c.words(80 + c.rng.IntN(140))
	return &textindex.Document{
		LinkID:      id,
		URL:         fmt.Sprintf("https://example.com/page/%d", n),
		Title:       title,
		Content:     content,
		ContentHash: textindex.ContentHash(title, content),
		IndexedAt:   time.Unix(1700000000+int64(n), 0).UTC(),
		// Scores as a ranking writes them (relative to the average
		// page), so that searches rank by relevance + prior as they do
		// after a crawl.
		PageRank: c.rng.ExpFloat64(),
	}
}

// benchLinks is how many links a benchmark document has.
const benchLinks = 20

// link gives every document of docs benchLinks links to others of docs,
// each saying one to three words of its target's title, as links mostly
// name the page they lead to (a title, or its first words: the anchor
// text of the rust and PostgreSQL documentation is so).
func (c *corpus) link(docs []*textindex.Document) {
	for _, d := range docs {
		d.Links = make([]textindex.Link, benchLinks)
		for n := range d.Links {
			to := docs[c.links.IntN(len(docs))]
			words := strings.Fields(to.Title)
			d.Links[n] = textindex.Link{URL: to.URL, Text: strings.Join(words[:min(len(words), 1+c.links.IntN(3))], " ")}
		}
	}
}

// queries returns n searches for text that occurs in docs, as users search
// for what exists: seven in ten are match queries of one to three words of
// a document (Zipf-distributed, so some are very broad), the rest phrases of
// two adjacent words.
func (c *corpus) queries(n int, docs []*textindex.Document) []textindex.Query {
	out := make([]textindex.Query, n)
	for i := range out {
		words := strings.Fields(docs[c.rng.IntN(len(docs))].Content)
		if c.rng.IntN(10) < 7 {
			pick := make([]string, 1+c.rng.IntN(3))
			for j := range pick {
				pick[j] = words[c.rng.IntN(len(words))]
			}
			out[i] = textindex.Query{Type: textindex.QueryTypeMatch, Expression: strings.Join(pick, " ")}
		} else {
			j := c.rng.IntN(len(words) - 1)
			out[i] = textindex.Query{Type: textindex.QueryTypePhrase, Expression: words[j] + " " + words[j+1]}
		}
	}
	return out
}

package pagerank_test

import (
	"context"
	"fmt"
	"log"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/pagerank"
	textmemory "github.com/linksrus/linksrus/textindex/memory"
)

// Ranking a graph in which two pages link to a home page that links back
// to one of them, and storing the scores in an index.
func ExampleCompute() {
	g := memory.New()
	home, a, b := &linkgraph.Link{URL: "https://example.com/"}, &linkgraph.Link{URL: "https://example.com/a"}, &linkgraph.Link{URL: "https://example.com/b"}
	if err := g.UpsertLinks([]*linkgraph.Link{home, a, b}); err != nil {
		log.Fatal(err)
	}
	edges := []*linkgraph.Edge{{Src: a.ID, Dst: home.ID}, {Src: b.ID, Dst: home.ID}, {Src: home.ID, Dst: a.ID}}
	if err := g.UpsertEdges(edges); err != nil {
		log.Fatal(err)
	}

	res, err := pagerank.Compute(context.Background(), g, pagerank.Options{})
	if err != nil {
		log.Fatal(err)
	}
	rank := map[string]float64{}
	for i, id := range res.IDs {
		l, _ := g.FindLink(id)
		rank[l.URL] = res.Scores[i]
	}
	fmt.Printf("home %.3f, a %.3f, b %.3f\n", rank[home.URL], rank[a.URL], rank[b.URL])

	idx := textmemory.New()
	if err := res.Write(context.Background(), idx); err != nil {
		log.Fatal(err)
	}
	// Output: home 0.486, a 0.464, b 0.050
}

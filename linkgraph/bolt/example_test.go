package bolt_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/bolt" // registers bolt:
)

// The embedded store is opened by file path; what was upserted is there
// after reopening.
func Example() {
	dir, err := os.MkdirTemp("", "linkgraph-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	url := "bolt://" + filepath.Join(dir, "data", "graph.db") // bolt:///tmp/…/data/graph.db

	g, err := linkgraph.Open(context.Background(), url)
	if err != nil {
		log.Fatal(err)
	}
	l := &linkgraph.Link{URL: "https://example.com/"}
	if err := g.UpsertLink(l); err != nil {
		log.Fatal(err)
	}
	g.Close()

	g, err = linkgraph.Open(context.Background(), url)
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	found, err := g.FindLink(l.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(found.URL)
	// Output: https://example.com/
}

// A job that needs the graph's shape and nothing more (ranking it, say)
// reads its edges as bare pairs of link IDs, in one pass.
func ExampleGraph_EdgePairs() {
	dir, err := os.MkdirTemp("", "linkgraph-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	g, err := bolt.Open(context.Background(), filepath.Join(dir, "graph.db"), bolt.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	home, docs, blog := &linkgraph.Link{URL: "https://example.com/"}, &linkgraph.Link{URL: "https://example.com/docs"}, &linkgraph.Link{URL: "https://example.com/blog"}
	if err := g.UpsertLinks([]*linkgraph.Link{home, docs, blog}); err != nil {
		log.Fatal(err)
	}
	if err := g.UpsertEdges([]*linkgraph.Edge{{Src: home.ID, Dst: docs.ID}, {Src: home.ID, Dst: blog.ID}, {Src: blog.ID, Dst: home.ID}}); err != nil {
		log.Fatal(err)
	}
	out := map[uuid.UUID]int{}
	err = g.EdgePairs(time.Now().Add(time.Minute), func(src, dst uuid.UUID) error {
		out[src]++
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out[home.ID], out[docs.ID], out[blog.ID])
	// Output: 2 0 1
}

package bolt_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/linksrus/linksrus/linkgraph"
	_ "github.com/linksrus/linksrus/linkgraph/bolt" // registers bolt:
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

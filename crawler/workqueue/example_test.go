package workqueue_test

import (
	"fmt"

	"github.com/linksrus/linksrus/crawler/workqueue"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/linkgraph/postgres"
)

// A crawl can be shared between processes when its graph keeps a queue
// for it: a PostgreSQL graph does, the in-memory one does not. This is the
// check a command makes before it asks the engine for a shared crawl
// (engine.Options.Shared then needs no Queue: it takes the graph's).
func ExampleProvider() {
	for _, g := range []linkgraph.Graph{memory.New(), (*postgres.Graph)(nil)} {
		_, shared := g.(workqueue.Provider)
		fmt.Printf("%T keeps a shared crawl queue: %v\n", g, shared)
	}
	// Output:
	// *memory.Graph keeps a shared crawl queue: false
	// *postgres.Graph keeps a shared crawl queue: true
}

// The library example of README.md ("The library: a crawl in a service"):
// README shows this file from its import block to the end, and
// TestREADMEExampleIsThisCode holds the two together. Example_readme runs it.

package engine_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/netip"
	"path/filepath"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/linkgraph"
	_ "github.com/linksrus/linksrus/linkgraph/bolt" // registers bolt://
	"github.com/linksrus/linksrus/textindex"
	_ "github.com/linksrus/linksrus/textindex/sqlite" // registers sqlite://
)

// crawlSite crawls from seed into the embedded stores in dir. allow lists
// the private networks the service may reach: none by default, so that a
// link to 10.0.0.1 or to the cloud's metadata address is not followed.
func crawlSite(ctx context.Context, dir, seed string, allow ...netip.Prefix) (err error) {
	graph, err := linkgraph.Open(ctx, "bolt://"+filepath.Join(dir, "graph.db"))
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, graph.Close()) }()
	index, err := textindex.Open(ctx, "sqlite://"+filepath.Join(dir, "index.db"))
	if err != nil {
		return err
	}
	// Close writes the last pages from the write-ahead log into the file.
	defer func() { err = errors.Join(err, index.Close()) }()

	e, err := engine.New(engine.Options{
		Graph:    graph,
		Index:    index, // nil: links only
		MaxPages: 10_000,
		FetchOptions: crawler.FetchOptions{
			UserAgent:              "acme-bot/1.0 (+https://acme.example/bot)",
			PrivateNetworkDetector: privnet.New(allow...),
		},
		OnOutcome: func(o crawler.Outcome) {
			if o.Err != nil {
				log.Println(o.URL, o.Reason, o.Err)
			}
		},
	})
	if err != nil {
		return err
	}
	sum, err := e.Run(ctx, seed)
	if err != nil {
		return err
	}
	fmt.Println(sum.Pages, "pages,", sum.Errors, "errors")
	for _, o := range sum.FailedSeeds() {
		fmt.Println("seed not crawled:", o.URL, o.Reason)
	}
	return nil
}

package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/archive/warc"
	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/linkgraph"
	graphmem "github.com/linksrus/linksrus/linkgraph/memory"
)

// Archive a crawl in WARC files: every response, as the server sent it.
func ExampleWARCRecorder() {
	site := exampleSite()
	defer site.Close()
	dir, err := os.MkdirTemp("", "warc-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	archive, err := warc.NewWriter(warc.Options{Dir: dir})
	if err != nil {
		panic(err)
	}
	graph := graphmem.New()
	for _, path := range []string{"/", "/about", "/missing"} {
		if err := graph.UpsertLink(&linkgraph.Link{URL: site.URL + path}); err != nil {
			panic(err)
		}
	}
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			// Only for this example: the site is on loopback.
			PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.1/32")),
			Recorder:               crawler.WARCRecorder(archive),
		},
	})
	if err != nil {
		panic(err)
	}
	it, err := graph.Links(uuid.Nil, uuid.Nil, time.Now())
	if err != nil {
		panic(err)
	}
	defer it.Close()
	if _, err := c.Crawl(context.Background(), it); err != nil {
		panic(err)
	}
	if err := archive.Close(); err != nil { // the crawl is over: the last file's index is written
		panic(err)
	}

	var got []string
	for x, err := range warc.ReadDir(context.Background(), dir, crawler.DefaultMaxBodyBytes) {
		if err != nil {
			panic(err)
		}
		got = append(got, fmt.Sprintf("%-8s %d %q", strings.TrimPrefix(x.URL, site.URL), x.Response.StatusCode, x.Response.Truncated))
	}
	slices.Sort(got) // the fetch workers archive in any order
	fmt.Println(strings.Join(got, "\n"))
	// Output:
	// /        200 ""
	// /about   200 ""
	// /missing 404 "unspecified"
}

// Rebuild a graph from WARC files, fetching nothing.
func ExampleWARCPages() {
	dir, err := os.MkdirTemp("", "warc-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	// An archive of one page, written here; a crawl's archive or another
	// tool's will do as well.
	archive, err := warc.NewWriter(warc.Options{Dir: dir})
	if err != nil {
		panic(err)
	}
	u, _ := url.Parse("https://example.com/")
	page := &warc.Exchange{URL: u.String(), Date: time.Now(), Response: &warc.Response{
		StatusCode: 200, Header: http.Header{"Content-Type": {"text/html"}},
		Body: []byte(`<title>Example</title><a href="/about">About</a>`),
	}}
	if err := archive.Record(context.Background(), page); err != nil {
		panic(err)
	}
	if err := archive.Close(); err != nil {
		panic(err)
	}

	graph := graphmem.New()
	c, err := crawler.NewCrawler(crawler.Config{Graph: graph})
	if err != nil {
		panic(err)
	}
	n, err := c.Import(context.Background(), crawler.WARCPages(warc.ReadDir(context.Background(), dir, crawler.DefaultMaxBodyBytes)))
	fmt.Println("pages imported:", n, err)

	it, err := graph.Links(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if err != nil {
		panic(err)
	}
	defer it.Close()
	var links []string
	for it.Next() {
		l := it.Link()
		links = append(links, fmt.Sprintf("%s retrieved=%v", l.URL, !l.RetrievedAt.IsZero()))
	}
	slices.Sort(links)
	fmt.Println(strings.Join(links, "\n"))
	// Output:
	// pages imported: 1 <nil>
	// https://example.com/ retrieved=true
	// https://example.com/about retrieved=false
}

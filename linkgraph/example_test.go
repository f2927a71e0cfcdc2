package linkgraph_test

import (
	"context"
	"fmt"
	"log"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
	_ "github.com/linksrus/linksrus/linkgraph/memory" // registers memory://
)

// Open selects a backend by URL scheme; the backend's package must be
// imported (here for its side effect of registering "memory").
func ExampleOpen() {
	g, err := linkgraph.Open(context.Background(), "memory://")
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()

	_, err = linkgraph.Open(context.Background(), "nosuch://")
	fmt.Println(err != nil)
	// Output: true
}

// Upserting a URL twice keeps its ID and the later retrieval time.
func ExampleGraph_UpsertLink() {
	g, err := linkgraph.Open(context.Background(), "memory://")
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()

	first := &linkgraph.Link{URL: "https://example.com/", RetrievedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	if err := g.UpsertLink(first); err != nil {
		log.Fatal(err)
	}
	again := &linkgraph.Link{URL: "https://example.com/"} // never retrieved, as far as this caller knows
	if err := g.UpsertLink(again); err != nil {
		log.Fatal(err)
	}
	fmt.Println(again.ID == first.ID, again.RetrievedAt.Format(time.DateOnly))
	// Output: true 2025-01-01
}

// A crawler records a page's links and edges with two batch calls and
// then drops the edges the page no longer has.
func ExampleGraph_UpsertEdges() {
	g, err := linkgraph.Open(context.Background(), "memory://")
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()

	page := &linkgraph.Link{URL: "https://example.com/", RetrievedAt: time.Now()}
	found := []*linkgraph.Link{page, {URL: "https://example.com/a"}, {URL: "https://example.com/b"}}
	if err := g.UpsertLinks(found); err != nil {
		log.Fatal(err)
	}
	crawlStarted := time.Now()
	edges := []*linkgraph.Edge{{Src: page.ID, Dst: found[1].ID}, {Src: page.ID, Dst: found[2].ID}}
	if err := g.UpsertEdges(edges); err != nil {
		log.Fatal(err)
	}
	// The edges just upserted are stamped no earlier than crawlStarted,
	// however soon after it: only edges older than this crawl go.
	if err := g.RemoveStaleEdges(page.ID, crawlStarted); err != nil {
		log.Fatal(err)
	}
	it, err := g.Edges(page.ID, uuid.Nil, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	defer it.Close()
	kept := 0
	for it.Next() {
		kept++
	}
	fmt.Println(edges[0].ID != uuid.Nil, !edges[0].UpdatedAt.Before(crawlStarted), kept)
	// Output: true true 2
}

// Links iterates a range of the ID space; splitting the space lets several
// crawlers share one graph. uuid.Nil as the upper bound means "to the end".
func ExampleGraph_Links() {
	g, err := linkgraph.Open(context.Background(), "memory://")
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()

	links := []*linkgraph.Link{{URL: "https://a.example/"}, {URL: "https://b.example/"}, {URL: "https://c.example/"}}
	if err := g.UpsertLinks(links); err != nil {
		log.Fatal(err)
	}
	half := uuid.UUID{0x80} // 80000000-0000-0000-0000-000000000000
	total := 0
	for _, r := range [][2]uuid.UUID{{uuid.Nil, half}, {half, uuid.Nil}} {
		it, err := g.Links(r[0], r[1], time.Now())
		if err != nil {
			log.Fatal(err)
		}
		for it.Next() {
			total++
			_ = it.Link().URL // a copy: safe to keep or change
		}
		if err := it.Error(); err != nil {
			log.Fatal(err)
		}
		it.Close()
	}
	fmt.Println(total)
	// Output: 3
}

// Links visits a range's IDs in CompareIDs order, so code that splits the
// ID space (here in two halves, as two processes would share a crawl)
// decides with CompareIDs which range an ID falls in.
func ExampleCompareIDs() {
	g, err := linkgraph.Open(context.Background(), "memory://")
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	for i := range 50 {
		if err := g.UpsertLink(&linkgraph.Link{URL: fmt.Sprintf("https://example.com/%d", i)}); err != nil {
			log.Fatal(err)
		}
	}

	half := uuid.UUID{0x80} // 80000000-0000-0000-0000-000000000000
	ranges := [][2]uuid.UUID{{uuid.Nil, half}, {half, uuid.Nil}}
	var all []uuid.UUID
	inRange := true
	for _, r := range ranges {
		it, err := g.Links(r[0], r[1], time.Now())
		if err != nil {
			log.Fatal(err)
		}
		for it.Next() {
			id := it.Link().ID
			all = append(all, id)
			if linkgraph.CompareIDs(r[0], id) > 0 || r[1] != uuid.Nil && linkgraph.CompareIDs(id, r[1]) >= 0 {
				inRange = false
			}
		}
		if err := it.Error(); err != nil {
			log.Fatal(err)
		}
		if err := it.Close(); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("links:", len(all))
	fmt.Println("each in its range:", inRange)
	fmt.Println("in CompareIDs order:", slices.IsSortedFunc(all, linkgraph.CompareIDs))
	// Output:
	// links: 50
	// each in its range: true
	// in CompareIDs order: true
}

package textindex_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
	_ "github.com/linksrus/linksrus/textindex/memory" // registers memory://
)

// Example indexes two pages, gives one a PageRank and searches them.
func Example() {
	ctx := context.Background()
	idx, err := textindex.Open(ctx, "memory://")
	if err != nil {
		log.Fatal(err)
	}
	defer idx.Close()

	gophers := uuid.MustParse("00000000-0000-0000-0000-000000000001")
	fish := uuid.MustParse("00000000-0000-0000-0000-000000000002")
	for _, doc := range []*textindex.Document{
		{LinkID: gophers, URL: "https://example.com/gophers", Title: "Gophers", Content: "Gophers dig tunnels.", IndexedAt: time.Now()},
		{LinkID: fish, URL: "https://example.com/fish", Title: "Fish", Content: "Fish do not dig tunnels.", IndexedAt: time.Now()},
	} {
		if err := idx.Index(doc); err != nil {
			log.Fatal(err)
		}
	}
	if err := idx.UpdateScore(fish, 0.9); err != nil {
		log.Fatal(err)
	}

	it, err := idx.Search(textindex.Query{Type: textindex.QueryTypeMatch, Expression: "tunnels dig"})
	if err != nil {
		log.Fatal(err)
	}
	defer it.Close()
	fmt.Println("hits:", it.TotalCount())
	for it.Next() {
		doc := it.Document()
		fmt.Println(doc.URL, doc.PageRank)
	}
	if err := it.Error(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// hits: 2
	// https://example.com/fish 0.9
	// https://example.com/gophers 0
}

// ExampleQuery_phrase shows that a phrase query needs the words in order
// and next to each other, and how Offset skips results.
func ExampleQuery_phrase() {
	idx, err := textindex.Open(context.Background(), "memory://")
	if err != nil {
		log.Fatal(err)
	}
	defer idx.Close()
	for n, text := range []string{"the quick brown fox", "brown and quick", "a quick brown dog"} {
		doc := &textindex.Document{LinkID: uuid.UUID{15: byte(n + 1)}, Title: fmt.Sprint("doc ", n), Content: text}
		if err := idx.Index(doc); err != nil {
			log.Fatal(err)
		}
	}
	q := textindex.Query{Type: textindex.QueryTypePhrase, Expression: "Quick brown", Offset: 1}
	it, err := idx.Search(q)
	if err != nil {
		log.Fatal(err)
	}
	defer it.Close()
	fmt.Println("total:", it.TotalCount())
	for it.Next() {
		fmt.Println(it.Document().Title)
	}
	// Output:
	// total: 2
	// doc 2
}

// ExampleOpen shows the error for a scheme no imported backend registered.
func ExampleOpen() {
	_, err := textindex.Open(context.Background(), "elasticsearch://localhost:9200")
	fmt.Println(errors.Is(err, textindex.ErrUnknownScheme))
	// Output:
	// true
}

// ExampleIndexer_UpdateScore records a PageRank before the page is
// indexed; the page gets it when it arrives.
func ExampleIndexer_UpdateScore() {
	idx, err := textindex.Open(context.Background(), "memory://")
	if err != nil {
		log.Fatal(err)
	}
	defer idx.Close()
	id := uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
	if err := idx.UpdateScore(id, 0.42); err != nil {
		log.Fatal(err)
	}
	_, err = idx.FindByID(id)
	fmt.Println("before indexing:", errors.Is(err, textindex.ErrNotFound))
	if err := idx.Index(&textindex.Document{LinkID: id, Title: "Late page"}); err != nil {
		log.Fatal(err)
	}
	doc, err := idx.FindByID(id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("after indexing:", doc.PageRank)
	// Output:
	// before indexing: true
	// after indexing: 0.42
}

// ExampleBatchIndexer stores pages with one IndexBatch call when the index
// supports it, as the crawler does, and falls back to Index otherwise. In a
// batch, the last document of a LinkID wins.
func ExampleBatchIndexer() {
	idx, err := textindex.Open(context.Background(), "memory://")
	if err != nil {
		log.Fatal(err)
	}
	defer idx.Close()

	id := uuid.MustParse("00000000-0000-0000-0000-000000000001")
	docs := []*textindex.Document{
		{LinkID: id, URL: "https://example.com/", Title: "Draft", Content: "first version"},
		{LinkID: uuid.MustParse("00000000-0000-0000-0000-000000000002"), URL: "https://example.com/b", Title: "Other"},
		{LinkID: id, URL: "https://example.com/", Title: "Final", Content: "second version"},
	}
	if bi, ok := idx.(textindex.BatchIndexer); ok {
		err = bi.IndexBatch(docs)
	} else {
		for _, d := range docs {
			if err = idx.Index(d); err != nil {
				break
			}
		}
	}
	if err != nil {
		log.Fatal(err)
	}
	doc, err := idx.FindByID(id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(doc.Title)

	// A document without a LinkID refuses the whole batch.
	err = idx.(textindex.BatchIndexer).IndexBatch([]*textindex.Document{{Title: "no id"}})
	fmt.Println(errors.Is(err, textindex.ErrMissingLinkID))
	// Output:
	// Final
	// true
}

// Example_duplicates indexes one page under three URLs, one of them a
// redirect: search shows it once, at its canonical URL, with the others.
func Example_duplicates() {
	ctx := context.Background()
	idx, err := textindex.Open(ctx, "memory://")
	if err != nil {
		log.Fatal(err)
	}
	defer idx.Close()

	title, text := "Gophers", "Gophers dig tunnels."
	hash := textindex.ContentHash(title, text)
	for _, d := range []struct {
		url      string
		redirect bool
	}{
		{"https://example.com/gophers?utm_source=feed", false},
		{"http://example.com/g", true}, // redirected to the page above
		{"https://example.com/gophers", false},
	} {
		doc := &textindex.Document{LinkID: uuid.New(), URL: d.url, Title: title, Content: text,
			IndexedAt: time.Now(), ContentHash: hash, Redirect: d.redirect}
		if err := idx.Index(doc); err != nil {
			log.Fatal(err)
		}
	}
	it, err := idx.Search(textindex.Query{Expression: "tunnels"})
	if err != nil {
		log.Fatal(err)
	}
	defer it.Close()
	for it.Next() {
		d := it.Document()
		fmt.Println(d.URL)
		for _, u := range d.AlsoAt {
			fmt.Println("  also at", u)
		}
	}
	fmt.Println(it.TotalCount(), "result")
	// Output:
	// https://example.com/gophers
	//   also at https://example.com/gophers?utm_source=feed
	//   also at http://example.com/g
	// 1 result
}

// ExampleSiteOf names the site of each page, which site: restricts a
// search to: a port other than the scheme's default is part of it.
func ExampleSiteOf() {
	ctx := context.Background()
	idx, err := textindex.Open(ctx, "memory://")
	if err != nil {
		log.Fatal(err)
	}
	defer idx.Close()
	for n, u := range []string{"http://127.0.0.1:8081/", "http://127.0.0.1:18083/", "https://Docs.Example.com:443/"} {
		fmt.Println(textindex.SiteOf(u))
		doc := &textindex.Document{LinkID: uuid.New(), URL: u, Title: fmt.Sprint("Index ", n), Content: "index page"}
		if err := idx.Index(doc); err != nil {
			log.Fatal(err)
		}
	}
	it, err := idx.Search(textindex.Query{Type: textindex.QueryTypeSearch, Expression: "index site:127.0.0.1:18083"})
	if err != nil {
		log.Fatal(err)
	}
	defer it.Close()
	for it.Next() {
		fmt.Println("found", it.Document().URL)
	}
	// Output:
	// 127.0.0.1:8081
	// 127.0.0.1:18083
	// docs.example.com
	// found http://127.0.0.1:18083/
}

// A word of a page's title or URL path counts more than the same word in
// its text (textindex.DefaultWeights); a query may weigh the fields its
// own way.
func ExampleWeights() {
	idx, err := textindex.Open(context.Background(), "memory://")
	if err != nil {
		log.Fatal(err)
	}
	defer idx.Close()
	for _, d := range []*textindex.Document{
		{LinkID: uuid.New(), URL: "https://example.com/notes.html", Title: "Notes", Content: "vacuum, then vacuum again"},
		{LinkID: uuid.New(), URL: "https://example.com/sql-vacuum.html", Title: "VACUUM", Content: "garbage-collect a database"},
	} {
		if err := idx.Index(d); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println(textindex.URLTerms("https://example.com/sql-vacuum.html?v=2"))
	for _, w := range []textindex.Weights{{}, {Title: 1, URL: 1, Body: 1}} {
		it, err := idx.Search(textindex.Query{Expression: "vacuum", Weights: w})
		if err != nil {
			log.Fatal(err)
		}
		it.Next()
		fmt.Printf("weights %+v: first %s\n", w, it.Document().Title)
		it.Close()
	}
	// Output:
	// [sql vacuum html]
	// weights {Title:0 URL:0 Headings:0 Body:0 Stem:0 Anchor:0 PageRank:0}: first VACUUM
	// weights {Title:1 URL:1 Headings:0 Body:1 Stem:0 Anchor:0 PageRank:0}: first Notes
}

// A word finds its other forms, in the language of each page; the form
// asked for comes first.
func ExampleQuery_language() {
	idx, err := textindex.Open(context.Background(), "memory://")
	if err != nil {
		log.Fatal(err)
	}
	defer idx.Close()
	for _, d := range []*textindex.Document{
		{LinkID: uuid.New(), URL: "https://example.com/a", Title: "Notes", Content: "the tables were vacuumed late yesterday evening"},
		{LinkID: uuid.New(), URL: "https://example.com/b", Title: "Notes", Content: "vacuuming the tables"},
		{LinkID: uuid.New(), URL: "https://example.fr/c", Title: "Notes", Content: "les tables nettoyées", Language: "fr"},
	} {
		if err := idx.Index(d); err != nil {
			log.Fatal(err)
		}
	}
	for _, q := range []textindex.Query{{Expression: "vacuum table"}, {Expression: "vacuuming"}, {Expression: "nettoyer", Language: "fr"}} {
		it, err := idx.Search(q)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d found, first", q.Expression, it.TotalCount())
		if it.Next() {
			fmt.Printf(" %s", it.Document().URL)
		}
		fmt.Println()
		it.Close()
	}
	// Output:
	// vacuum table: 2 found, first https://example.com/b
	// vacuuming: 2 found, first https://example.com/b
	// nettoyer: 1 found, first https://example.fr/c
}

// ExampleIndexer_UpdateAnchors gives pages the words of the links to them:
// the tool's manual, which several pages link to as "psql", comes before
// a page that only says psql more often, and MatchedFields says where
// each result holds the word.
func ExampleIndexer_UpdateAnchors() {
	ctx := context.Background()
	idx, err := textindex.Open(ctx, "memory://")
	if err != nil {
		log.Fatal(err)
	}
	defer idx.Close()

	manual := &textindex.Document{LinkID: uuid.New(), URL: "https://example.com/app-psql.html",
		Title: "Reference", Content: "The interactive terminal psql."}
	notes := &textindex.Document{LinkID: uuid.New(), URL: "https://example.com/notes.html",
		Title: "Notes", Content: "psql, psql and psql again."}
	docs := []*textindex.Document{manual, notes}
	for n := range 6 {
		page := &textindex.Document{LinkID: uuid.New(), URL: fmt.Sprintf("https://example.com/%d.html", n),
			Title: fmt.Sprintf("Chapter %d", n), Content: "A chapter."}
		page.Links = []textindex.Link{{URL: fmt.Sprintf("https://example.com/%d.html", (n+1)%6), Text: "next chapter"}}
		if n < 3 {
			page.Links = append(page.Links, textindex.Link{URL: manual.URL, Text: "psql"})
		}
		docs = append(docs, page)
	}
	for _, d := range docs {
		if err := idx.Index(d); err != nil {
			log.Fatal(err)
		}
	}
	// A ranking job does this after a crawl, with the scores.
	if err := idx.UpdateAnchors(ctx); err != nil {
		log.Fatal(err)
	}
	q := textindex.Query{Expression: "psql"}
	it, err := idx.Search(q)
	if err != nil {
		log.Fatal(err)
	}
	defer it.Close()
	for it.Next() {
		d := it.Document()
		fmt.Println(d.URL, d.Anchors, textindex.MatchedFields(q, d))
	}
	// Output:
	// https://example.com/app-psql.html [psql] [url body anchor]
	// https://example.com/notes.html [] [body]
}

package searchweb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/searchweb"
	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/memory"
)

func Example() {
	idx := memory.New()
	_ = idx.Index(&textindex.Document{
		LinkID:  uuid.New(),
		URL:     "https://go.dev/doc/effective_go",
		Title:   "Effective Go",
		Content: "Goroutines are multiplexed onto multiple OS threads.",
	})
	h, err := searchweb.New(searchweb.Options{Index: idx, Name: "Go docs"})
	if err != nil {
		panic(err)
	}
	// In a program: http.ListenAndServe("127.0.0.1:8080", h).
	srv := httptest.NewServer(h)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/api/search?q=goroutines")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Total   int `json:"total"`
		Results []struct {
			Title   string            `json:"title"`
			Snippet textindex.Snippet `json:"snippet"`
		} `json:"results"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&answer)
	r := answer.Results[0]
	fmt.Println(answer.Total, r.Title)
	for _, p := range r.Snippet {
		if p.Match {
			fmt.Printf("[%s]", p.Text)
		} else {
			fmt.Print(p.Text)
		}
	}
	fmt.Println()
	// Output:
	// 1 Effective Go
	// [Goroutines] are multiplexed onto multiple OS threads.
}

// ExampleReadQuery reads queries as the search page and `linksrus search`
// do, with what they say about them.
func ExampleReadQuery() {
	for _, text := range []string{
		`gopher "burrowing rodent" site:example.com:8080`,
		"-rust site:go.dev",
		strings.Repeat("vacuum ", 10000),
	} {
		r := searchweb.ReadQuery(text, textindex.QueryTypeSearch, 0)
		switch {
		case r.Problem != "":
			fmt.Println(r.Problem)
		case r.Cut:
			fmt.Println(r.CutNotice())
		default:
			fmt.Println("Results for " + searchweb.Quote(r.Shown))
		}
	}
	// Output:
	// Results for gopher "burrowing rodent" site:example.com:8080
	// The query has no word or phrase to look for: -word and site:host only narrow a search.
	// The query was cut to its first 4 KB and 32 words; searched for “vacuum”.
}

// ExampleParseBaseURL checks the URL a site is served at, for
// Options.BaseURL.
func ExampleParseBaseURL() {
	for _, raw := range []string{"https://search.example.com/", "search.example.com"} {
		base, err := searchweb.ParseBaseURL(raw)
		fmt.Printf("%q %v\n", base, err)
	}
	// Output:
	// "https://search.example.com" <nil>
	// "" base URL "search.example.com": not an absolute http or https URL (like https://search.example.com)
}

// ExampleResults pages through a query's results as `linksrus search`
// and the search page do: each page shows Limit results, with their
// near-duplicates folded under them, and the next page starts where it
// stopped reading.
func ExampleResults() {
	ctx := context.Background()
	idx := memory.New()
	var notes strings.Builder
	for n := range 300 {
		fmt.Fprintf(&notes, "Change %d of this release makes the crawler better in way %d. ", n, n*7)
	}
	for i, p := range []struct{ url, title, text string }{
		{"https://example.com/notes/monday", "Release notes", "Posted on Monday. " + notes.String()},
		{"https://example.com/notes/tuesday", "Release notes", "Posted on Tuesday. " + notes.String()},
		{"https://example.com/about", "About", "A crawler, and the people who write it."},
	} {
		_ = idx.Index(&textindex.Document{LinkID: uuid.UUID{15: byte(i + 1)}, URL: p.url, Title: p.title, Content: p.text})
	}

	req := searchweb.ReadQuery("crawler", textindex.QueryTypeSearch, 0)
	for {
		page, err := searchweb.Results(ctx, idx, req.Query, searchweb.PageOptions{Limit: 1})
		if err != nil {
			panic(err)
		}
		for _, r := range page.Results {
			fmt.Printf("%d. %s %s\n", r.Rank, r.Title, r.URL)
			for _, n := range r.NearDuplicates {
				fmt.Printf("   nearly the same: %d. %s\n", n.Rank, n.URL)
			}
		}
		fmt.Printf("results %d-%d of %d\n", page.Offset+1, page.Next(), page.Total)
		if !page.More {
			break
		}
		req.Query.Offset = page.Next()
	}
	// Output:
	// 1. Release notes https://example.com/notes/monday
	//    nearly the same: 2. https://example.com/notes/tuesday
	// results 1-2 of 3
	// 3. About https://example.com/about
	// results 3-3 of 3
}

package searchweb_test

import (
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

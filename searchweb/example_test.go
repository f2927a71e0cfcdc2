package searchweb_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

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

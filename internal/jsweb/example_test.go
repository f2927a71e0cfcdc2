package jsweb_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/linksrus/linksrus/internal/jsweb"
)

// A crawl test serves the site, crawls it, and compares what it found with
// Shell (no script run) or Pages (pages rendered).
func Example() {
	s, err := jsweb.Start(jsweb.Options{Generated: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	resp, err := http.Get(s.URL() + "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println("links served:", strings.Count(string(body), "<a "))
	fmt.Println("shell:", jsweb.Shell())
	fmt.Println("pages:", s.Pages())
	fmt.Println("late word of /docs/intro:", jsweb.LateWord("/docs/intro"))
	// Output:
	// links served: 0
	// shell: [/]
	// pages: [/ /docs/config /docs/install /docs/intro /docs/pushed /docs/scrolled /docs/shadow /endless.html /gen/0 /gen/1 /hog.html]
	// late word of /docs/intro: quokkaintro
}

package engine_test

import (
	"bytes"
	"context"
	"log"
	"net/netip"
	"os"
	"strings"
	"testing"
)

// The README example crawls a site on loopback, which the service allows
// explicitly; 3 pages and the broken link of exampleSite.
func Example_readme() {
	site := exampleSite()
	defer site.Close()
	dir, err := os.MkdirTemp("", "readme")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	err = crawlSite(context.Background(), dir, site.URL+"/", netip.MustParsePrefix("127.0.0.0/8"))
	if err != nil {
		log.Fatal(err)
	}
	// Output: 3 pages, 1 errors
}

// Without the allow-list the loopback seed is refused, and the summary
// says so: an error, and the seed's outcome.
func Example_readmeRefused() {
	site := exampleSite()
	defer site.Close()
	dir, err := os.MkdirTemp("", "readme")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	log.SetOutput(os.Stdout)
	log.SetFlags(0)
	defer log.SetOutput(os.Stderr)
	defer log.SetFlags(log.LstdFlags)
	if err := crawlSite(context.Background(), dir, "http://127.0.0.1:1/"); err != nil {
		log.Fatal(err)
	}
	// Output:
	// http://127.0.0.1:1/ private-network crawler: host "127.0.0.1": privnet: private or special-purpose address
	// 0 pages, 1 errors
	// seed not crawled: http://127.0.0.1:1/ private-network
}

// README.md shows readme_test.go from its import block on, word for word.
func TestREADMEExampleIsThisCode(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	code, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(code, []byte("\nimport ("))
	if start < 0 {
		t.Fatal("readme_test.go has no import block")
	}
	want := strings.TrimSpace(string(code[start:]))
	section := string(readme)
	i := strings.Index(section, "## The library: a crawl in a service")
	if i < 0 {
		t.Fatal(`README.md has no "The library: a crawl in a service" section`)
	}
	section = section[i:]
	open := strings.Index(section, "```go\n")
	if open < 0 {
		t.Fatal("the README section has no Go block")
	}
	block := section[open+len("```go\n"):]
	end := strings.Index(block, "```")
	if end < 0 {
		t.Fatal("the README's Go block is not closed")
	}
	if got := strings.TrimSpace(block[:end]); got != want {
		t.Errorf("README.md's library example differs from crawler/engine/readme_test.go; put this in README:\n%s", want)
	}
}

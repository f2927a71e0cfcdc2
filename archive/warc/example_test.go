package warc_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/linksrus/linksrus/archive/warc"
	"github.com/linksrus/linksrus/crawler"
)

// A Writer is a crawler.Recorder: set as crawler.Config.Recorder, it gets
// every response of a crawl. Here one exchange is written by hand and read
// back as an import reads it.
func ExampleWriter() {
	dir, err := os.MkdirTemp("", "warc-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	w, err := warc.NewWriter(warc.Options{Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	u, _ := url.Parse("https://example.com/")
	req := &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}}
	res := &http.Response{StatusCode: 200, Proto: "HTTP/1.1", Header: http.Header{"Content-Type": {"text/html"}}, Request: req}
	x := &crawler.Exchange{URL: u.String(), Request: req, Response: res, Body: []byte("<title>Example</title>"), FetchedAt: time.Now()}
	if err := w.Record(context.Background(), x); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil { // writes the last file's CDXJ index
		log.Fatal(err)
	}

	for page, err := range warc.ReadDir(context.Background(), dir, crawler.DefaultMaxBodyBytes) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(page.URL, page.StatusCode, string(page.Body))
	}
	// Output: https://example.com/ 200 <title>Example</title>
}

// SURT gives the key a URL has in a CDXJ index: the one pywb looks it up
// by.
func ExampleSURT() {
	fmt.Println(warc.SURT("http://www.Example.com/Docs/?b=2&a=1#top"))
	fmt.Println(warc.SURT("http://127.0.0.1:8080/about.html"))
	fmt.Println(warc.SURT("https://[::1]:443/"))
	// Output:
	// com,example)/docs?a=1&b=2
	// 1,0,0,127:8080)/about.html
	// ::1)/
}

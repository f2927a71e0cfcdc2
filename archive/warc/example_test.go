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
)

// A Writer archives exchanges, a response record and a request record
// each (a crawler's Recorder hands it every response: see
// crawler.WARCRecorder). Here one exchange is written by hand and read
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
	x := &warc.Exchange{
		URL:      u.String(),
		Date:     time.Now(),
		Request:  &warc.Request{Method: http.MethodGet, URL: u, Header: http.Header{}},
		Response: &warc.Response{StatusCode: 200, Proto: "HTTP/1.1", Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte("<title>Example</title>")},
	}
	if err := w.Record(context.Background(), x); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil { // writes the last file's CDXJ index
		log.Fatal(err)
	}

	for x, err := range warc.ReadDir(context.Background(), dir, 1<<20) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(x.URL, x.Response.StatusCode, string(x.Response.Body))
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

package hostileweb_test

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/linksrus/linksrus/internal/hostileweb"
	"golang.org/x/net/html"
)

func TestManyLinks(t *testing.T) {
	s := start(t, hostileweb.Options{})
	c := newClient(t, 30*time.Second)
	resp, body := fetch(t, c, s.URL()+hostileweb.PathManyLinks, 64<<20)
	wantContentType(t, resp, "text/html; charset=utf-8")
	hrefs := links(t, body)
	distinct := make(map[string]bool, len(hrefs))
	for _, h := range hrefs {
		distinct[h] = true
	}
	if len(hrefs) != hostileweb.DefaultManyLinks || len(distinct) != len(hrefs) {
		t.Fatalf("%d links, %d distinct; want %d distinct", len(hrefs), len(distinct), hostileweb.DefaultManyLinks)
	}
	if r, _ := fetch(t, c, s.URL()+hrefs[len(hrefs)-1], 1<<10); r.StatusCode != http.StatusOK {
		t.Errorf("last link %s: status %d, want 200", hrefs[len(hrefs)-1], r.StatusCode)
	}
	past := "/trap/many-links/item/" + strconv.Itoa(hostileweb.DefaultManyLinks)
	if r, _ := fetch(t, c, s.URL()+past, 1<<10); r.StatusCode != http.StatusNotFound {
		t.Errorf("%s: status %d, want 404", past, r.StatusCode)
	}
}

func TestDeepNesting(t *testing.T) {
	s := start(t, hostileweb.Options{})
	resp, body := fetch(t, newClient(t, 30*time.Second), s.URL()+hostileweb.PathDeepNesting, 16<<20)
	wantContentType(t, resp, "text/html; charset=utf-8")
	depth, deepest, linkDepth := 0, 0, -1
	z := html.NewTokenizer(bytes.NewReader(body))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		name, _ := z.TagName()
		switch {
		case tt == html.StartTagToken && string(name) == "div":
			depth++
			deepest = max(deepest, depth)
		case tt == html.EndTagToken && string(name) == "div":
			depth--
		case tt == html.StartTagToken && string(name) == "a":
			linkDepth = depth
		}
	}
	if z.Err() != io.EOF {
		t.Fatalf("tokenize: %v", z.Err())
	}
	if deepest != hostileweb.DefaultNestingDepth || depth != 0 || linkDepth != deepest {
		t.Errorf("deepest %d, final %d, link at %d; want %d, 0, %d",
			deepest, depth, linkDepth, hostileweb.DefaultNestingDepth, hostileweb.DefaultNestingDepth)
	}
}

func TestHugeHeaders(t *testing.T) {
	s := start(t, smallOptions)
	c := newClient(t, 10*time.Second) // accepts up to 1 MiB of header
	resp, body := fetch(t, c, s.URL()+hostileweb.PathHugeHeaders, 1<<10)
	size := 0
	for k, vs := range resp.Header {
		for _, v := range vs {
			size += len(k) + len(": ") + len(v) + len("\r\n")
		}
	}
	if size < smallOptions.HeaderBytes {
		t.Errorf("header is %d bytes, want at least %d", size, smallOptions.HeaderBytes)
	}
	if !strings.Contains(string(body), "You read all the headers") {
		t.Errorf("body %q, want the page after the headers", body)
	}

	c.Transport.(*http.Transport).MaxResponseHeaderBytes = 64 << 10
	if _, err := c.Get(s.URL() + hostileweb.PathHugeHeaders); err == nil || !strings.Contains(err.Error(), "headers exceeded") {
		t.Errorf("with a 64 KiB limit: error = %v, want headers exceeded", err)
	}
}

func TestHugeHeadersDefaultBeatsNetHTTPLimit(t *testing.T) {
	s := start(t, hostileweb.Options{})
	tr := &http.Transport{} // net/http's default 10 MiB header limit
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	resp, err := c.Get(s.URL() + hostileweb.PathHugeHeaders)
	if err == nil {
		resp.Body.Close()
		t.Fatal("GET succeeded, want the header limit exceeded")
	}
	if !strings.Contains(err.Error(), "headers exceeded") {
		t.Errorf("error = %v, want headers exceeded", err)
	}
}

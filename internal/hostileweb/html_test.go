package hostileweb_test

import (
	"bytes"
	"io"
	"testing"

	"golang.org/x/net/html"
)

// links returns the href of every <a> in body, in order.
func links(t *testing.T, body []byte) []string {
	t.Helper()
	var out []string
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				t.Fatalf("tokenize: %v", z.Err())
			}
			return out
		case html.StartTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "a" {
				continue
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if string(k) == "href" {
					out = append(out, string(v))
				}
			}
		}
	}
}

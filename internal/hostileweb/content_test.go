package hostileweb_test

import (
	"bytes"
	"image/png"
	"mime"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/linksrus/linksrus/internal/hostileweb"
)

func TestInvalidUTF8(t *testing.T) {
	s := start(t, smallOptions)
	resp, body := fetch(t, newClient(t, 5*time.Second), s.URL()+hostileweb.PathInvalidUTF8, 1<<20)
	wantContentType(t, resp, "text/html; charset=utf-8")
	if utf8.Valid(body) {
		t.Error("body is valid UTF-8, want invalid sequences")
	}
	if got := links(t, body); len(got) != 1 || got[0] != "/pages/2" {
		t.Errorf("links %q, want the one link after the damage", got)
	}
}

func TestMislabelledCharset(t *testing.T) {
	s := start(t, smallOptions)
	resp, body := fetch(t, newClient(t, 5*time.Second), s.URL()+hostileweb.PathMislabelledCharset, 1<<20)
	_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		t.Fatalf("parse Content-Type: %v", err)
	}
	if !strings.EqualFold(params["charset"], "iso-8859-1") {
		t.Errorf("header charset %q, want ISO-8859-1", params["charset"])
	}
	if !utf8.Valid(body) || !bytes.Contains(body, []byte("Grüße")) {
		t.Errorf("body is not the UTF-8 text it should be: %q", body)
	}
	if !bytes.Contains(body, []byte(`<meta charset="utf-8">`)) {
		t.Error("body lacks the meta tag that contradicts the header")
	}
}

func TestImageOnHTMLPath(t *testing.T) {
	s := start(t, smallOptions)
	if !strings.HasSuffix(hostileweb.PathImageAsHTML, ".html") {
		t.Fatalf("path %q does not look like a page", hostileweb.PathImageAsHTML)
	}
	resp, body := fetch(t, newClient(t, 5*time.Second), s.URL()+hostileweb.PathImageAsHTML, 1<<20)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200", resp.StatusCode)
	}
	wantContentType(t, resp, "image/png")
	img, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("decode PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 16 || b.Dy() != 16 {
		t.Errorf("image is %v, want 16x16", b)
	}
}

func TestRobotsIsSeededGarbage(t *testing.T) {
	robots := func(seed uint64) []byte {
		opts := smallOptions
		opts.Seed = seed
		s := start(t, opts)
		resp, body := fetch(t, newClient(t, 5*time.Second), s.URL()+hostileweb.PathRobots, 1<<20)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d, want 200", resp.StatusCode)
		}
		return body
	}
	a, again, other := robots(7), robots(7), robots(8)
	if len(a) != hostileweb.DefaultRobotsBytes {
		t.Errorf("robots.txt is %d bytes, want %d", len(a), hostileweb.DefaultRobotsBytes)
	}
	if !bytes.Equal(a, again) {
		t.Error("the same seed gave different bytes")
	}
	if bytes.Equal(a, other) {
		t.Error("different seeds gave the same bytes")
	}
	if utf8.Valid(a) {
		t.Error("robots.txt is valid UTF-8; want binary garbage")
	}
}

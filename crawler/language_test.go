package crawler

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// The text extraction stage takes a page's language from its <html lang>,
// else keeps what the response's Content-Language said; what is not a
// language tag is no language.
func TestPageLanguage(t *testing.T) {
	for _, tc := range []struct {
		header, body, want string
	}{
		{"", `<html lang="fr-CA"><body>bonjour</body></html>`, "fr-CA"},
		{"de-DE, en-CA", `<html><body>hallo</body></html>`, "de-DE"},
		{"de", `<HTML LANG=en><body>hello</body></HTML>`, "en"}, // the page over the response
		{"", `<!doctype html><html class=x lang='es'><p>hola</p>`, "es"},
		{"", `<html lang="en&#45;GB"><p>colour</p>`, "en-GB"},
		{"en_US", `<p>no html tag</p>`, "en_US"},
		{"", `<html lang="x;drop table"><p>text</p>`, ""},
		{"", `<html lang=""><p>text</p>`, ""},
		{"*", `<html><p>text</p>`, ""},
		{"", `<body><html lang="fr"><p>a second html tag counts too</p>`, "fr"},
		{"", `<html lang="ru"><body><html lang="fr"></body>`, "ru"}, // the first only
	} {
		h := http.Header{}
		if tc.header != "" {
			h.Set("Content-Language", tc.header)
		}
		p := NewPayload([16]byte{1}, "http://example.com/", time.Time{})
		p.Language = contentLanguage(h)
		p.Body = []byte(tc.body)
		if _, err := NewTextExtractor().Process(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		if p.Language != tc.want {
			t.Errorf("Content-Language %q, %s: language %q, want %q", tc.header, tc.body, p.Language, tc.want)
		}
		p.MarkAsProcessed()
	}
}

package hostileweb

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
)

// invalidUTF8Body mixes text with byte sequences that no UTF-8 decoder may
// accept: a lone continuation byte, an overlong encoding of '/', an encoded
// surrogate, a truncated sequence, bytes 0xFE and 0xFF, and a code point
// above U+10FFFF.
var invalidUTF8Body = []byte("<!doctype html><html><head><meta charset=\"utf-8\"><title>invalid utf-8</title></head><body>\n" +
	"<p>lone continuation: \x80</p>\n" +
	"<p>overlong slash: \xc0\xaf</p>\n" +
	"<p>encoded surrogate: \xed\xa0\x80</p>\n" +
	"<p>truncated: \xe6\x97</p>\n" +
	"<p>never valid: \xfe\xff</p>\n" +
	"<p>beyond U+10FFFF: \xf4\x90\x80\x80</p>\n" +
	"<p><a href=\"/pages/2\">a link after the damage</a></p>\n" +
	"</body></html>\n")

// serveInvalidUTF8 declares UTF-8 in both header and meta tag and then
// breaks it. A crawler must neither crash nor store invalid text; it may
// repair (U+FFFD) or reject, but should report the encoding error.
func (s *Server) serveInvalidUTF8(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", contentTypeHTML)
	_, _ = w.Write(invalidUTF8Body)
}

// mislabelledText is the non-ASCII text of the mislabelled page; read as
// ISO-8859-1, as the header demands, it turns into mojibake.
const mislabelledText = "Grüße aus Köln — 東京 — naïve café"

// mislabelledBody is valid UTF-8 and says so in its meta tag.
var mislabelledBody = []byte("<!doctype html><html><head><meta charset=\"utf-8\"><title>mislabelled charset</title></head><body>\n" +
	"<p>" + mislabelledText + "</p>\n</body></html>\n")

// serveMislabelledCharset sends UTF-8 under a header that declares
// ISO-8859-1, while the meta tag says UTF-8. The header wins by the HTML
// standard, so a decoder that trusts it garbles the text: the crawler should
// notice the conflict.
func (s *Server) serveMislabelledCharset(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=ISO-8859-1")
	_, _ = w.Write(mislabelledBody)
}

// newPNG renders a small real PNG, so that a crawler which sniffs content
// rather than trusting the path finds an image.
func newPNG() ([]byte, error) {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for y := range 16 {
		for x := range 16 {
			img.Set(x, y, color.RGBA{R: uint8(x * 16), G: uint8(y * 16), B: 128, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode png: %w", err)
	}
	return buf.Bytes(), nil
}

// serveImageAsHTML answers an .html path with 200 and an image. The status
// and path look like a page; only the content type says otherwise.
func (s *Server) serveImageAsHTML(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "image/png")
	_, _ = w.Write(s.png)
}

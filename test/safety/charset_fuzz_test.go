package safety

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"golang.org/x/net/html/charset"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/pipeline"
)

// bytesGetter is a URLGetter that answers every request with one page held
// in memory, so that a fuzz iteration costs no network round trip while
// going through the crawler's real fetch stage.
type bytesGetter struct {
	contentType string
	body        []byte
}

func (g *bytesGetter) Do(req *http.Request) (*http.Response, error) {
	h := http.Header{}
	if g.contentType != "" {
		h.Set("Content-Type", g.contentType)
	}
	return &http.Response{
		StatusCode:    http.StatusOK,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(g.body)),
		ContentLength: int64(len(g.body)),
		Request:       req,
	}, nil
}

// fuzzHangLimit is how long one input may keep the stages busy. An input
// of the fuzzer's size limit takes milliseconds; seconds mean a loop.
const fuzzHangLimit = 10 * time.Second

// FuzzCharsetDecoding feeds arbitrary bytes, labelled with an arbitrary
// charset in the Content-Type header (and, for some inputs, a <meta> tag),
// through the crawler's fetch, link and text stages. Whatever the bytes,
// no stage may fail or panic; a page whose encoding was determined to be
// other than UTF-8 comes out as valid UTF-8; and the title, text and links
// handed to the graph and the index are valid UTF-8 always.
func FuzzCharsetDecoding(f *testing.F) {
	for _, s := range []struct {
		label string
		body  string
	}{
		{"utf-8", "<title>caf\xc3\xa9</title><p>ok</p>"},
		{"utf-8", "<title>\xff\xfe\xc3</title><p>\xed\xa0\x80 surrogate</p>"},
		{"iso-8859-1", "<meta charset=utf-8><p>caf\xc3\xa9</p>"},
		{"windows-1252", "<p>\x80\x81\x8d\x8f\x90\x9d</p>"},
		{"shift_jis", "<title>\x82\xa0\x82</title>"},
		{"euc-jp", "<p>\x8f\xa2</p>"},
		{"iso-2022-jp", "<p>\x1b$B\x24\x22\x1b(B and \x1b$B\x24</p>"},
		{"utf-16le", "\xff\xfe<\x00p\x00>\x00\x00\xd8"},
		{"utf-16be", "\x00<\x00a\x00 \x00h\x00r\x00e\x00f\x00=\x00/"},
		{"gb18030", "<p>\x81\x30\x81</p>"},
		{"big5", "<a href=\"/\xa4\xa4\">x</a>"},
		{"replacement", "<p>anything</p>"},
		{"x-user-defined", "<p>\xf0\x9f\x98</p>"},
		{"no-such-charset", "<p>\xc3\x28</p>"},
		{"", "\xef\xbb\xbf<title>bom</title>\xc3"},
		{"koi8-r", "<title>\xf0\xd2\xc9\xd7\xc5\xd4</title>"},
	} {
		f.Add(s.label, []byte(s.body))
	}
	detector := privnet.New(netip.MustParsePrefix("127.0.0.0/8"))
	links := crawler.NewLinkExtractor(detector)
	text := crawler.NewTextExtractor()
	f.Fuzz(func(t *testing.T, label string, body []byte) {
		contentType := "text/html"
		if label != "" {
			contentType += "; charset=" + label
		}
		if strings.ContainsAny(contentType, "\r\n\x00") {
			return // not a header value net/http could deliver
		}
		fetcher, err := crawler.NewFetcher(crawler.Config{
			FetchOptions: crawler.FetchOptions{
				PrivateNetworkDetector: detector,
				URLGetter:              &bytesGetter{contentType: contentType, body: body},
				FetchTimeout:           5 * time.Second,
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		// A page that makes a stage spin is as bad as a crash; the fuzzer
		// only notices crashes.
		watchdog := time.AfterFunc(fuzzHangLimit, func() {
			panic(fmt.Sprintf("stages still busy after %v with label %q, body %q", fuzzHangLimit, label, body))
		})
		defer watchdog.Stop()
		ctx := context.Background()
		p := crawler.NewPayload(uuid.New(), "http://127.0.0.1/page", time.Time{})
		var out pipeline.Payload = p
		for _, stage := range []pipeline.Processor{fetcher, links, text} {
			if out, err = stage.Process(ctx, out); err != nil {
				t.Fatalf("%T: %v", stage, err)
			}
			if out == nil {
				p.MarkAsProcessed()
				return // skipped, as a charset the crawler cannot decode should be
			}
		}
		got := out.(*crawler.Payload)
		defer got.MarkAsProcessed()

		if _, name, certain := charset.DetermineEncoding(body, contentType); name != "utf-8" && certain && !utf8.Valid(got.Body) {
			t.Errorf("body labelled %q (decoded as %s) is not valid UTF-8 after the fetch stage: %q", label, name, got.Body)
		}
		if !utf8.ValidString(got.Title) || !utf8.ValidString(got.TextContent) {
			t.Errorf("title %q or text %q is not valid UTF-8", got.Title, got.TextContent)
		}
		for _, l := range append(got.Links, got.NoFollowLinks...) {
			u, err := url.Parse(l)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !utf8.ValidString(l) {
				t.Errorf("extracted link %q is not a valid absolute http(s) URL", l)
			}
		}
	})
}

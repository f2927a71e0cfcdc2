package engine

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/linksrus/linksrus/crawler"
)

type bodyGetter string

func (b bodyGetter) Do(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(string(b))),
		ContentLength: int64(len(b)), Request: req}, nil
}

type keptExchanges struct {
	mu   sync.Mutex
	got  []crawler.Exchange
	fail error
}

func (k *keptExchanges) Record(_ context.Context, x *crawler.Exchange) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	c := *x
	c.Body = append([]byte(nil), x.Body...)
	k.got = append(k.got, c)
	return k.fail
}

// The engine's own requests reach the Recorder once each: a body read to
// its end whole (or cut at the limit), one closed early as cut, what was
// read kept; a failure to record is the reader's error.
func TestRecordingGetter(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		read       int // bytes read before Close; -1: to the end
		want       string
		cut        crawler.BodyCut
	}{
		{"whole", "User-agent: *\nDisallow: /x\n", -1, "User-agent: *\nDisallow: /x\n", crawler.BodyWhole},
		{"empty", "", 0, "", crawler.BodyWhole},
		{"over the limit", strings.Repeat("a", 40), -1, strings.Repeat("a", 32), crawler.BodyTruncated},
		{"closed early", strings.Repeat("b", 30), 10, strings.Repeat("b", 10), crawler.BodyTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := &keptExchanges{}
			g := &recordingGetter{next: bodyGetter(tc.body), rec: k, limit: 32}
			req, _ := http.NewRequest(http.MethodGet, "http://h/robots.txt", nil)
			res, err := g.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if tc.read < 0 {
				if _, err := io.ReadAll(res.Body); err != nil {
					t.Fatal(err)
				}
			} else if _, err := io.ReadFull(res.Body, make([]byte, tc.read)); err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if len(k.got) != 1 {
				t.Fatalf("%d exchanges recorded, want 1", len(k.got))
			}
			x := k.got[0]
			if string(x.Body) != tc.want || x.Cut != tc.cut || x.URL != "http://h/robots.txt" || x.Response.StatusCode != 200 {
				t.Errorf("recorded %q cut %v for %s, want %q cut %v", x.Body, x.Cut, x.URL, tc.want, tc.cut)
			}
		})
	}
	boom := errors.New("disk full")
	g := &recordingGetter{next: bodyGetter("x"), rec: &keptExchanges{fail: boom}, limit: 32}
	req, _ := http.NewRequest(http.MethodGet, "http://h/sitemap.xml", nil)
	res, _ := g.Do(req)
	if _, err := io.ReadAll(res.Body); !errors.Is(err, boom) {
		t.Errorf("read with a failing Recorder: %v, want its error", err)
	}
}

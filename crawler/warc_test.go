package crawler_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/linksrus/linksrus/archive/warc"
	"github.com/linksrus/linksrus/crawler"
)

// An exchange without a response is refused, as the Writer refused it
// when it took the crawler's exchanges itself, and nothing is written.
func TestWARCRecorderRefusesExchangeWithoutResponse(t *testing.T) {
	w, err := warc.NewWriter(warc.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rec := crawler.WARCRecorder(w)
	for _, x := range []*crawler.Exchange{nil, {URL: "http://example.com/"}} {
		if err := rec.Record(context.Background(), x); err == nil {
			t.Errorf("Record(%+v): no error", x)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if files, responses := w.Stats(); files != 0 || responses != 0 {
		t.Errorf("%d files, %d responses written; want none", files, responses)
	}
}

// WARCPages hands Import every response and error the reader yields, in
// order, a nil page for a record without a response, and stops reading
// when Import stops.
func TestWARCPages(t *testing.T) {
	boom := errors.New("boom")
	at := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	read := 0
	responses := func(yield func(*warc.Exchange, error) bool) {
		for _, x := range []*warc.Exchange{
			nil,
			{URL: "http://example.com/none"},
			{URL: "http://example.com/", Date: at, Response: &warc.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/html"}},
				Body: []byte("<p>cut"), Truncated: warc.TruncatedLength}},
			{URL: "http://example.com/whole", Response: &warc.Response{StatusCode: 404}},
		} {
			read++
			if !yield(x, nil) {
				return
			}
		}
		read++
		yield(nil, boom)
	}
	var got []*crawler.FetchedPage
	var gotErr error
	for p, err := range crawler.WARCPages(responses) {
		got, gotErr = append(got, p), err
	}
	if len(got) != 5 || got[0] != nil || got[1] != nil || !errors.Is(gotErr, boom) {
		t.Fatalf("pages %+v, error %v; want two nil, two pages, then the error", got, gotErr)
	}
	if p := got[2]; p.URL != "http://example.com/" || p.StatusCode != 200 || p.Header.Get("Content-Type") != "text/html" ||
		string(p.Body) != "<p>cut" || !p.Truncated || !p.FetchedAt.Equal(at) {
		t.Errorf("page %+v", p)
	}
	if p := got[3]; p.URL != "http://example.com/whole" || p.StatusCode != 404 || p.Truncated {
		t.Errorf("page %+v", p)
	}

	read = 0
	for range crawler.WARCPages(responses) {
		break
	}
	if read != 1 {
		t.Errorf("%d responses read after the first page, want 1", read)
	}
}

package warc_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"

	"github.com/linksrus/linksrus/archive/warc"
	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/linkgraph"
)

// bomb is a gzip stream of 1 GiB of zeros, about 1 MB long: 1,024 members
// of 1 MiB each (a gzip reader reads concatenated members as one stream).
var bomb = sync.OnceValue(func() []byte {
	return bytes.Repeat(gz(make([]byte, 1<<20)), 1024)
})

// sliceLinks is a linkgraph.LinkIterator over URLs.
type sliceLinks struct {
	urls []string
	i    int
}

func (it *sliceLinks) Next() bool            { it.i++; return it.i <= len(it.urls) }
func (it *sliceLinks) Error() error          { return nil }
func (it *sliceLinks) Close() error          { return nil }
func (it *sliceLinks) Link() *linkgraph.Link { return &linkgraph.Link{URL: it.urls[it.i-1]} }

// A crawl recording into a Writer: every page fetched is in the files, as
// the library's reader reads them; a 1 GiB gzip bomb and an endless body
// end as too large, their records no larger than the body limit.
func TestCrawlIntoWARC(t *testing.T) {
	const maxBody = 256 << 10 // below the bomb's 1 MB, compressed
	mux := http.NewServeMux()
	for i := range 5 {
		mux.HandleFunc(fmt.Sprintf("/page/%d", i), func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<title>page %d</title>", i)
		})
	}
	mux.HandleFunc("/bomb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(bomb())
	})
	mux.HandleFunc("/small-bomb", func(w http.ResponseWriter, r *http.Request) {
		// 64 MiB of zeros in 64 KB: within the limit as sent, not decoded.
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(bomb()[:64*len(bomb())/1024])
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		chunk := bytes.Repeat([]byte("<p>more"), 1000)
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	dir := t.TempDir()
	w, err := warc.NewWriter(warc.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]crawler.Reason{}
	var mu sync.Mutex
	c, err := crawler.NewCrawler(crawler.Config{
		PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.1/32")),
		MaxBodyBytes:           maxBody,
		FetchTimeout:           10 * time.Second,
		Recorder:               w,
		OnOutcome: func(o crawler.Outcome) {
			mu.Lock()
			defer mu.Unlock()
			outcomes[o.URL] = o.Reason
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	urls := []string{srv.URL + "/bomb", srv.URL + "/small-bomb", srv.URL + "/endless"}
	for i := range 5 {
		urls = append(urls, fmt.Sprintf("%s/page/%d", srv.URL, i))
	}
	if _, err := c.Crawl(context.Background(), &sliceLinks{urls: urls}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, u := range urls[:3] {
		if outcomes[u] != crawler.ReasonTooLarge {
			t.Errorf("%s: %v, want too-large", u, outcomes[u])
		}
	}

	warcs := files(t, dir, ".warc.gz")
	if len(warcs) != 1 {
		t.Fatalf("files %v", warcs)
	}
	r, err := gowarc.NewWarcFileReader(warcs[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	seen := map[string]string{}
	for rec, err := range r.Records() {
		if err != nil {
			t.Fatal(err)
		}
		if rec.WarcRecord.Type() == gowarc.Response {
			h := rec.WarcRecord.WarcHeader()
			block := rec.WarcRecord.Block().(gowarc.HttpResponseBlock)
			p, err := block.PayloadBytes()
			if err != nil {
				t.Fatal(err)
			}
			n, _ := io.Copy(io.Discard, p)
			if n > maxBody {
				t.Errorf("%s: a body of %d bytes in the archive", h.Get(gowarc.WarcTargetURI), n)
			}
			seen[h.Get(gowarc.WarcTargetURI)] = h.Get(gowarc.WarcTruncated)
		}
		_ = rec.Close()
	}
	for _, u := range urls {
		if _, ok := seen[u]; !ok {
			t.Errorf("%s fetched but not in the archive", u)
		}
	}
	if seen[srv.URL+"/endless"] != "length" || seen[srv.URL+"/bomb"] != "length" || seen[srv.URL+"/small-bomb"] != "" {
		t.Errorf("WARC-Truncated: %v", seen)
	}
	checkIndex(t, warcs[0], len(urls))
}

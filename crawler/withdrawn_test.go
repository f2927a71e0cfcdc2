package crawler_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	graphmem "github.com/linksrus/linksrus/linkgraph/memory"
)

// withdrawingGetter takes the host back from the first request of each
// path listed in before (the request fails, unsent) and in during (the
// response's body fails half read), as an engine does when its lease on
// the host ends.
type withdrawingGetter struct {
	next           crawler.URLGetter
	mu             sync.Mutex
	before, during map[string]bool
}

func (g *withdrawingGetter) Do(req *http.Request) (*http.Response, error) {
	g.mu.Lock()
	cutBefore, cutDuring := g.before[req.URL.Path], g.during[req.URL.Path]
	delete(g.before, req.URL.Path)
	delete(g.during, req.URL.Path)
	g.mu.Unlock()
	if cutBefore {
		return nil, fmt.Errorf("lease ended: %w", crawler.ErrWithdrawn)
	}
	res, err := g.next.Do(req)
	if err == nil && cutDuring {
		res.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(io.LimitReader(res.Body, 10), failingReader{fmt.Errorf("lease ended: %w", crawler.ErrWithdrawn)}), res.Body}
	}
	return res, err
}

type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

// parkRecorder is a bfsFrontier that notes each page parked, with its
// validator, and each outcome.
type parkRecorder struct {
	*bfsFrontier
	mu     sync.Mutex
	parked []string
	out    []crawler.Outcome
}

func (f *parkRecorder) Park(p *crawler.Payload, host string, notBefore time.Time) {
	f.mu.Lock()
	f.parked = append(f.parked, p.URL[strings.LastIndex(p.URL, "/"):]+" "+p.ETag)
	f.mu.Unlock()
	f.bfsFrontier.Park(p, host, notBefore)
}

func (f *parkRecorder) Done(o crawler.Outcome) {
	f.mu.Lock()
	f.out = append(f.out, o)
	f.mu.Unlock()
	f.bfsFrontier.Done(o)
}

// A request whose host is withdrawn before it is sent, or while its body
// is read, parks its page with the frontier instead of failing it: the
// frontier hands it out again and it is crawled, with no error reported.
// A page parked half read keeps the validators of what the stores hold,
// not those of the response it never finished.
func TestWithdrawnRequestParksThePage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("ETag", `"new"`)
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<a href="/a">a</a> <a href="/b">b</a>`)
		default:
			fmt.Fprintf(w, `<title>%s</title><p>%s</p>`, r.URL.Path, strings.Repeat("text ", 50))
		}
	}))
	defer srv.Close()

	getter := &withdrawingGetter{
		next:   crawler.NewURLGetter(privnet.New(netip.MustParsePrefix("127.0.0.0/8"))),
		before: map[string]bool{"/a": true},
		during: map[string]bool{"/b": true},
	}
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.0/8")),
			URLGetter:              getter,
			Workers:                2,
		},
		Graph: graphmem.New(),
	})
	if err != nil {
		t.Fatal(err)
	}
	f := &parkRecorder{bfsFrontier: newBFSFrontier(srv.URL + "/")}
	n, err := c.CrawlFrom(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if n != 3 {
		t.Errorf("crawled %d pages, want 3", n)
	}
	for _, o := range f.out {
		if o.Reason != crawler.ReasonCrawled {
			t.Errorf("%s: %v (%v), want crawled", o.URL, o.Reason, o.Err)
		}
	}
	for _, p := range f.parked {
		if strings.Contains(p, `"new"`) {
			t.Errorf("parked %q with the validator of a body never read", p)
		}
	}
	if len(getter.before)+len(getter.during) != 0 {
		t.Errorf("requests never withdrawn: %v %v", getter.before, getter.during)
	}
}

package crawler_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/linkgraph"
	graphmem "github.com/linksrus/linksrus/linkgraph/memory"
	indexmem "github.com/linksrus/linksrus/textindex/memory"
)

// heldGraph is a memory graph whose first write waits until release is
// closed, so that pages pile up behind it, and which counts the calls that
// mark pages retrieved.
type heldGraph struct {
	*graphmem.Graph
	release chan struct{}
	once    sync.Once
	marks   atomic.Int32 // UpsertLinks calls carrying a RetrievedAt
}

func (g *heldGraph) UpsertLinks(links []*linkgraph.Link) error {
	g.once.Do(func() { <-g.release })
	for _, l := range links {
		if !l.RetrievedAt.IsZero() {
			g.marks.Add(1)
			break
		}
	}
	return g.Graph.UpsertLinks(links)
}

// Pages that arrive while the graph is busy are written together, and each
// page's outcome is reported only once the page is in the graph (marked
// retrieved, with its edges) and in the index.
func TestCrawlBatchesStoresBeforeReporting(t *testing.T) {
	const pages = 20
	var served atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/p/{n}", func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Header().Set("Content-Type", "text/html")
		_, _ = fmt.Fprintf(w, `<title>%s</title><p>page text</p><a href="/p/0">first</a>`, r.PathValue("n"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	g := &heldGraph{Graph: graphmem.New(), release: make(chan struct{})}
	ix := indexmem.New()
	defer g.Close()
	defer ix.Close()
	links := make([]*linkgraph.Link, pages)
	for i := range links {
		links[i] = &linkgraph.Link{URL: fmt.Sprintf("%s/p/%d", srv.URL, i)}
	}
	if err := g.Graph.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}

	var (
		mu       sync.Mutex
		reported int
		problems []string
	)
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.1/32")),
			Workers:                pages,
			FetchTimeout:           5 * time.Second,
		},
		Graph: g,
		Index: ix,
		OnOutcome: func(o crawler.Outcome) {
			mu.Lock()
			defer mu.Unlock()
			reported++
			if !o.Crawled() {
				problems = append(problems, fmt.Sprintf("%s: %v %v", o.URL, o.Reason, o.Err))
				return
			}
			if l, err := g.FindLink(o.LinkID); err != nil || l.RetrievedAt.IsZero() {
				problems = append(problems, fmt.Sprintf("%s reported before it was marked retrieved (%v)", o.URL, err))
			}
			if _, err := ix.FindByID(o.LinkID); err != nil {
				problems = append(problems, fmt.Sprintf("%s reported before it was indexed: %v", o.URL, err))
			}
			if edges := edgesOf(t, g.Graph, o.LinkID); len(edges) != 1 || edges[0] != srv.URL+"/p/0" {
				problems = append(problems, fmt.Sprintf("%s reported with edges %q", o.URL, edges))
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		// Hold the first write until every page has been fetched.
		for served.Load() < pages {
			time.Sleep(time.Millisecond)
		}
		close(g.release)
	}()
	n, err := c.Crawl(context.Background(), &sliceIterator{links: links})
	if err != nil || n != pages {
		t.Fatalf("Crawl = %d, %v; want %d pages", n, err, pages)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Error(p)
	}
	if reported != pages {
		t.Errorf("%d outcomes reported, want %d", reported, pages)
	}
	// The first page's batch waited alone; the others queued up meanwhile.
	if m := g.marks.Load(); m > pages/2 {
		t.Errorf("%d graph batches for %d pages: pages that queued up were not written together", m, pages)
	}
}

// batchSizes is a memory graph that records how many pages each write
// marks retrieved (the size of each store batch), holding the first write
// until release is closed.
type batchSizes struct {
	*graphmem.Graph
	release chan struct{}
	once    sync.Once
	mu      sync.Mutex
	sizes   []int
}

func (g *batchSizes) UpsertLinks(links []*linkgraph.Link) error {
	g.once.Do(func() { <-g.release })
	n := 0
	for _, l := range links {
		if !l.RetrievedAt.IsZero() {
			n++
		}
	}
	if n > 0 {
		g.mu.Lock()
		g.sizes = append(g.sizes, n)
		g.mu.Unlock()
	}
	return g.Graph.UpsertLinks(links)
}

// Large pages close a store batch at StoreBatchBytes, however many more
// are ready: a run of them must not pile up in memory for one write.
func TestCrawlStoreBatchBoundedByBytes(t *testing.T) {
	const (
		pages    = 40
		pageSize = 2 << 20
	)
	body := "<title>big</title><p>" + strings.Repeat("word ", pageSize/5) + "</p>"
	var served atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	g := &batchSizes{Graph: graphmem.New(), release: make(chan struct{})}
	defer g.Close()
	links := make([]*linkgraph.Link, pages)
	for i := range links {
		links[i] = &linkgraph.Link{URL: fmt.Sprintf("%s/%d", srv.URL, i)}
	}
	if err := g.Graph.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	ix := indexmem.New()
	defer ix.Close()
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.1/32")),
			Workers:                pages,
		},
		Graph:           g,
		Index:           ix, // the pages' text is what they hold in the batch
		StoreBatchDelay: time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		// Hold the first write until every page is fetched and a
		// channel's worth of them waits, ready at once, for the next
		// batch.
		for served.Load() < pages {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
		close(g.release)
	}()
	if n, err := c.Crawl(context.Background(), &sliceIterator{links: links}); err != nil || n != pages {
		t.Fatalf("Crawl = %d, %v", n, err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	most := crawler.StoreBatchBytes/len(body) + 1
	for _, n := range g.sizes {
		if n > most {
			t.Errorf("a batch of %d pages of %d bytes, want at most %d (batch sizes %v)", n, len(body), most, g.sizes)
			break
		}
	}
}

// With StoreBatchSize 1, every page is written on its own.
func TestCrawlStoreBatchSizeOne(t *testing.T) {
	const pages = 6
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, `<title>t</title>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	g := &heldGraph{Graph: graphmem.New(), release: make(chan struct{})}
	close(g.release)
	defer g.Close()
	links := make([]*linkgraph.Link, pages)
	for i := range links {
		links[i] = &linkgraph.Link{URL: fmt.Sprintf("%s/%d", srv.URL, i)}
	}
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions:   crawler.FetchOptions{PrivateNetworkDetector: privnet.New(netip.MustParsePrefix("127.0.0.1/32"))},
		Graph:          g,
		StoreBatchSize: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := c.Crawl(context.Background(), &sliceIterator{links: links}); err != nil || n != pages {
		t.Fatalf("Crawl = %d, %v", n, err)
	}
	if m := g.marks.Load(); m != pages {
		t.Errorf("%d graph batches, want one per page (%d)", m, pages)
	}
}

func TestStoreBatchSizeInvalid(t *testing.T) {
	if _, err := crawler.NewCrawler(crawler.Config{StoreBatchSize: -1}); !errors.Is(err, crawler.ErrInvalidConfig) {
		t.Fatalf("NewCrawler(StoreBatchSize -1): err = %v, want ErrInvalidConfig", err)
	}
}

package crawler

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/pipeline"
)

// FetchOptions.Retry, HeadFirst, MaxRedirects, SortQuery and StripTracking
// reach the stages of a crawl.
func TestConfigFetchPolicies(t *testing.T) {
	var busy atomic.Bool
	busy.Store(true)
	s, hits := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			if r.Method == http.MethodGet && busy.Swap(false) {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			htmlPage(w, `<a href="/x?utm_source=a&b=2&a=1">x</a>`)
		case "/file":
			w.Header().Set("Content-Type", "application/octet-stream")
		case "/hop1":
			http.Redirect(w, r, "/hop2", http.StatusFound)
		case "/hop2":
			http.Redirect(w, r, "/", http.StatusFound)
		}
	})
	var mu sync.Mutex
	got := map[string]Outcome{}
	var links []string
	cfg := loopbackConfig()
	cfg.Retry = RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
	cfg.HeadFirst = true
	cfg.MaxRedirects = 1
	cfg.SortQuery, cfg.StripTracking = true, true
	cfg.Workers = 1
	cfg.Processors = []pipeline.Processor{pipeline.ProcessorFunc(func(_ context.Context, pp pipeline.Payload) (pipeline.Payload, error) {
		mu.Lock()
		defer mu.Unlock()
		links = append(links, pp.(*Payload).Links...)
		return pp, nil
	})}
	cfg.OnOutcome = func(o Outcome) {
		mu.Lock()
		defer mu.Unlock()
		got[strings.TrimPrefix(o.URL, s.URL)] = o
	}
	c, err := NewCrawler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var in []*linkgraph.Link
	for _, p := range []string{"/", "/file", "/hop1"} {
		in = append(in, &linkgraph.Link{ID: uuid.New(), URL: s.URL + p})
	}
	if _, err := c.Crawl(context.Background(), &sliceLinks{links: in}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]Reason{"/": ReasonCrawled, "/file": ReasonContentType, "/hop1": ReasonTooManyRedirects} {
		if o := got[path]; o.Reason != want {
			t.Errorf("%s: %v (%v), want %v", path, o.Reason, o.Err, want)
		}
	}
	if want := []string{s.URL + "/x?a=1&b=2"}; !slices.Equal(links, want) {
		t.Errorf("links = %q, want %q", links, want)
	}
	// The requests of each page, in order (the retry of / is parked with
	// the crawl's frontier, so other pages' requests may come before it).
	wantHits := map[string][]string{
		"/":     {"HEAD /", "GET /", "GET /"},
		"/file": {"HEAD /file"},
		"/hop1": {"HEAD /hop1", "GET /hop1", "HEAD /hop2", "GET /hop2"},
	}
	h := hits.list()
	byPage := map[string][]string{}
	for _, r := range h {
		page := r[strings.Index(r, " ")+1:]
		if page == "/hop2" {
			page = "/hop1"
		}
		byPage[page] = append(byPage[page], r)
	}
	for page, want := range wantHits {
		if !slices.Equal(byPage[page], want) {
			t.Errorf("requests of %s = %q, want %q (all: %q)", page, byPage[page], want, h)
		}
	}
	if len(h) != 8 {
		t.Errorf("requests = %q, want 8", h)
	}
	if _, err := NewCrawler(Config{FetchOptions: FetchOptions{Retry: RetryPolicy{BaseDelay: -1}}}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("invalid Retry: %v, want ErrInvalidConfig", err)
	}
}

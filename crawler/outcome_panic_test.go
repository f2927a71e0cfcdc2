package crawler

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/pipeline"
)

// A panic in OnOutcome, which runs as a page leaves the pipeline, is
// recovered and returned as the crawl's error; the other pages are still
// crawled and reported.
func TestOnOutcomePanicIsAnError(t *testing.T) {
	s, _ := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) { htmlPage(w, "page") })
	var reported atomic.Int32
	cfg := loopbackConfig()
	cfg.OnOutcome = func(o Outcome) {
		reported.Add(1)
		if strings.HasSuffix(o.URL, "/boom") {
			panic("hook failed")
		}
	}
	c, err := NewCrawler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var links []*linkgraph.Link
	for _, p := range []string{"/a", "/boom", "/b"} {
		links = append(links, &linkgraph.Link{ID: uuid.New(), URL: s.URL + p})
	}
	n, err := c.Crawl(context.Background(), &linkSlice{links: links})
	var pe *pipeline.PanicError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "/boom") {
		t.Fatalf("Crawl error %v, want the hook's panic", err)
	}
	if n != 3 || reported.Load() != 3 {
		t.Errorf("crawled %d, reported %d, want 3 and 3", n, reported.Load())
	}
}

// linkSlice is a linkgraph.LinkIterator over a slice.
type linkSlice struct {
	links []*linkgraph.Link
	i     int
}

func (it *linkSlice) Next() bool {
	if it.i >= len(it.links) {
		return false
	}
	it.i++
	return true
}
func (it *linkSlice) Error() error          { return nil }
func (it *linkSlice) Close() error          { return nil }
func (it *linkSlice) Link() *linkgraph.Link { l := *it.links[it.i-1]; return &l }

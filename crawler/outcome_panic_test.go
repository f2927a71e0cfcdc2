package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

// panickyFrontier is a LinkFrontier whose Done panics for one URL.
type panickyFrontier struct {
	*LinkFrontier
	boom string
}

func (f panickyFrontier) Done(o Outcome) {
	f.LinkFrontier.Done(o)
	if strings.HasSuffix(o.URL, f.boom) {
		panic("done failed")
	}
}

// A panic in a Frontier's Done is recovered as OnOutcome's is: the crawl
// ends with it as its error, every page still reported, no hang.
func TestFrontierDonePanicIsAnError(t *testing.T) {
	s, _ := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) { htmlPage(w, "page") })
	c, err := NewCrawler(loopbackConfig())
	if err != nil {
		t.Fatal(err)
	}
	var links []*linkgraph.Link
	for _, p := range []string{"/a", "/boom", "/b"} {
		links = append(links, &linkgraph.Link{ID: uuid.New(), URL: s.URL + p})
	}
	f := panickyFrontier{LinkFrontier: NewLinkFrontier(&linkSlice{links: links}), boom: "/boom"}
	defer f.Close()
	n, err := c.CrawlFrom(context.Background(), f)
	var pe *pipeline.PanicError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "/boom") {
		t.Fatalf("CrawlFrom error %v, want Done's panic", err)
	}
	if n != 3 {
		t.Errorf("crawled %d, want 3", n)
	}
}

// A gate that cannot decide (ErrNotReady) has nothing to wait for in a
// Crawl, whose LinkFrontier paces nothing: the page is skipped with
// ReasonGate, as it always was, and the crawl ends.
func TestCrawlSkipsPageWhoseGateIsNotReady(t *testing.T) {
	s, _ := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) { htmlPage(w, "page") })
	cfg := loopbackConfig()
	cfg.Gates = []Gate{GateFunc(func(_ context.Context, u *url.URL) error {
		if u.Path == "/later" {
			return fmt.Errorf("robots.txt of %s: %w", u.Host, ErrNotReady)
		}
		return nil
	})}
	var outcomes sync.Map
	cfg.OnOutcome = func(o Outcome) { outcomes.Store(o.URL, o.Reason) }
	c, err := NewCrawler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	links := []*linkgraph.Link{{ID: uuid.New(), URL: s.URL + "/now"}, {ID: uuid.New(), URL: s.URL + "/later"}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := c.Crawl(ctx, &linkSlice{links: links})
	if err != nil || ctx.Err() != nil {
		t.Fatalf("Crawl: %v (context: %v)", err, ctx.Err())
	}
	later, _ := outcomes.Load(s.URL + "/later")
	if n != 1 || later != ReasonGate {
		t.Errorf("crawled %d, /later %v; want 1 and %v", n, later, ReasonGate)
	}
}

// The crawl's starved callback asks every store worker for its batch: one
// value per graph writer, none more.
func TestStarvedAsksEveryStoreWorker(t *testing.T) {
	cfg := loopbackConfig()
	cfg.GraphWriters = 3
	c, err := NewCrawler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	flush := newFlush(c.cfg)
	starved(flush)
	starved(flush)
	if n := len(flush); n != 3 || cap(flush) != 3 {
		t.Errorf("%d flushes asked (room for %d), want one per store worker (3)", n, cap(flush))
	}
}

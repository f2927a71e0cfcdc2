package crawler

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/linksrus/linksrus/pipeline"
)

// foreignPayload is a pipeline.Payload that is not the crawler's.
type foreignPayload struct{}

func (foreignPayload) Clone() pipeline.Payload { return foreignPayload{} }
func (foreignPayload) MarkAsProcessed()        {}

func filledPayload() *Payload {
	p := NewPayload([16]byte{7}, "http://example.com/", time.Unix(1, 0))
	p.FinalURL, p.StatusCode, p.ContentType = "https://example.com/", 200, "text/html"
	p.Body = append(p.Body, "<p>body</p>"...)
	p.Links = append(p.Links, "http://a/", "http://b/")
	p.NoFollowLinks = append(p.NoFollowLinks, "http://n/")
	p.NoIndex, p.Title, p.TextContent = true, "T", "body"
	return p
}

func TestPayloadCloneLeavesOriginalIntact(t *testing.T) {
	p := filledPayload()
	defer p.MarkAsProcessed()
	c := p.Clone().(*Payload)
	defer c.MarkAsProcessed()

	if string(p.Body) != "<p>body</p>" {
		t.Fatalf("original body after Clone = %q", p.Body)
	}
	if string(c.Body) != string(p.Body) || c.URL != p.URL || c.LinkID != p.LinkID || c.FinalURL != p.FinalURL ||
		c.Title != p.Title || c.TextContent != p.TextContent || !c.NoIndex || c.StatusCode != 200 ||
		len(c.Links) != 2 || len(c.NoFollowLinks) != 1 || !c.RetrievedAt.Equal(p.RetrievedAt) {
		t.Fatalf("clone differs: %+v", c)
	}
	// A deep copy: writing to the clone does not show through.
	c.Body[0] = 'X'
	c.Links[0] = "changed"
	if p.Body[0] != '<' || p.Links[0] != "http://a/" {
		t.Fatal("clone shares memory with the original")
	}
}

func TestPayloadRecyclingKeepsCapacity(t *testing.T) {
	p := filledPayload()
	p.Body = append(p.Body, make([]byte, 64<<10)...)
	bodyCap, linksCap := cap(p.Body), cap(p.Links)
	p.reset()
	if len(p.Body) != 0 || cap(p.Body) != bodyCap || len(p.Links) != 0 || cap(p.Links) != linksCap {
		t.Fatalf("after reset: body %d/%d links %d/%d", len(p.Body), cap(p.Body), len(p.Links), cap(p.Links))
	}
	if p.URL != "" || p.Title != "" || p.NoIndex || p.StatusCode != 0 || p.track != nil {
		t.Fatalf("reset left data: %+v", p)
	}
	if full := p.Links[:linksCap]; full[0] != "" {
		t.Fatal("reset keeps references to old link strings")
	}
}

// Every copy of a page counts once at the sink and reports once, from the
// last copy, with the crawled reason.
func TestTrackedPageCountedAndReportedOnce(t *testing.T) {
	var mu sync.Mutex
	var outcomes []Outcome
	report := func(o Outcome) { mu.Lock(); outcomes = append(outcomes, o); mu.Unlock() }

	p := NewPayload([16]byte{1}, "http://example.com/", time.Time{})
	p.track = newTracker(context.Background(), report, nil)
	p.Links = append(p.Links, "http://x/")
	copies := []pipeline.Payload{p, p.Clone(), p.Clone()}
	sink := new(Sink)
	for _, c := range copies[:2] {
		if err := sink.Consume(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range copies {
		c.MarkAsProcessed()
	}
	if sink.Count() != 1 {
		t.Fatalf("count = %d, want 1", sink.Count())
	}
	if len(outcomes) != 1 || outcomes[0].Reason != ReasonCrawled || outcomes[0].Links != 1 {
		t.Fatalf("outcomes = %+v", outcomes)
	}
}

func TestTrackedPageDroppedOrCanceled(t *testing.T) {
	var got []Reason
	report := func(o Outcome) { got = append(got, o.Reason) }

	dropped := NewPayload([16]byte{1}, "http://a/", time.Time{})
	dropped.track = newTracker(context.Background(), report, nil)
	dropped.MarkAsProcessed()

	skipped := NewPayload([16]byte{2}, "http://b/", time.Time{})
	skipped.track = newTracker(context.Background(), report, nil)
	skipped.skip(ReasonHTTPStatus, nil)
	skipped.MarkAsProcessed()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	abandoned := NewPayload([16]byte{3}, "http://c/", time.Time{})
	abandoned.track = newTracker(ctx, report, nil)
	abandoned.MarkAsProcessed()

	want := []Reason{ReasonDropped, ReasonHTTPStatus, ReasonCanceled}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("reasons = %v, want %v", got, want)
	}
}

func TestSinkRejectsForeignPayload(t *testing.T) {
	if err := new(Sink).Consume(context.Background(), foreignPayload{}); err == nil {
		t.Fatal("Consume accepted a foreign payload")
	}
}

func TestReasonString(t *testing.T) {
	seen := map[string]bool{}
	for r := ReasonCrawled; r < numReasons; r++ {
		s := r.String()
		if s == "" || seen[s] {
			t.Errorf("reason %d has empty or duplicate name %q", r, s)
		}
		seen[s] = true
	}
	if s := Reason(200).String(); s != "reason(200)" {
		t.Errorf("unknown reason = %q", s)
	}
}

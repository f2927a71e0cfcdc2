package crawler

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/linksrus/linksrus/crawler/mocks"
	"github.com/linksrus/linksrus/linkgraph"
	graphmem "github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/pipeline"
	"github.com/linksrus/linksrus/textindex"
)

func TestGraphUpdater(t *testing.T) {
	ctrl := gomock.NewController(t)
	g := mocks.NewMockGraph(ctrl)
	srcID, aID, bID, nID := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	fetched := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC)

	// A page never retrieved before: links, edges, then the page marked
	// retrieved; it has no edges of its own to remove.
	gomock.InOrder(
		g.EXPECT().UpsertLinks(gomock.Any()).DoAndReturn(func(links []*linkgraph.Link) error {
			want := []string{"http://example.com/", "http://a/", "http://b/", "http://n/"}
			if len(links) != len(want) {
				t.Fatalf("UpsertLinks got %d links, want %d", len(links), len(want))
			}
			for i, l := range links {
				if l.URL != want[i] {
					t.Errorf("link %d = %q, want %q", i, l.URL, want[i])
				}
				if !l.RetrievedAt.IsZero() {
					t.Errorf("link %d RetrievedAt = %v before the edges are stored", i, l.RetrievedAt)
				}
			}
			for i, id := range []uuid.UUID{srcID, aID, bID, nID} {
				links[i].ID = id
			}
			return nil
		}),
		g.EXPECT().UpsertEdges(gomock.Any()).DoAndReturn(func(edges []*linkgraph.Edge) error {
			if len(edges) != 2 {
				t.Fatalf("UpsertEdges got %d edges, want 2 (no edge to no-follow links)", len(edges))
			}
			for i, dst := range []uuid.UUID{aID, bID} {
				if edges[i].Src != srcID || edges[i].Dst != dst {
					t.Errorf("edge %d = %v -> %v", i, edges[i].Src, edges[i].Dst)
				}
			}
			return nil
		}),
		g.EXPECT().UpsertLinks(gomock.Len(1)).DoAndReturn(func(links []*linkgraph.Link) error {
			if links[0].URL != "http://example.com/" || !links[0].RetrievedAt.Equal(fetched) {
				t.Errorf("marked %q retrieved at %v, want the page at %v", links[0].URL, links[0].RetrievedAt, fetched)
			}
			return nil
		}),
	)

	u := NewGraphUpdater(g)
	u.now = func() time.Time { return clock }
	p := NewPayload(srcID, "http://example.com/", time.Time{})
	defer p.MarkAsProcessed()
	p.FetchedAt = fetched
	p.Links = append(p.Links, "http://a/", "http://b/")
	p.NoFollowLinks = append(p.NoFollowLinks, "http://n/")
	if out, err := u.Process(context.Background(), p); err != nil || out != p {
		t.Fatalf("Process = %v, %v", out, err)
	}
}

// A page retrieved before, now without followed links, drops all its old
// edges, without an empty UpsertEdges call, before it is marked retrieved.
// The stale bound is the clock reading as it is, finer than a microsecond:
// the graph stamps edges no earlier than a time read before (see
// linkgraph.Graph, "Time"), so it needs no rounding, and rounding it down
// would keep an edge stored earlier in that microsecond.
func TestGraphUpdaterRecrawlNoLinks(t *testing.T) {
	ctrl := gomock.NewController(t)
	g := mocks.NewMockGraph(ctrl)
	id := uuid.New()
	clock := time.Date(2026, 1, 2, 3, 4, 6, 500, time.UTC)
	gomock.InOrder(
		g.EXPECT().UpsertLinks(gomock.Len(1)).DoAndReturn(func(links []*linkgraph.Link) error {
			links[0].ID = id
			return nil
		}),
		g.EXPECT().RemoveStaleEdges(id, clock).Return(nil),
		g.EXPECT().UpsertLinks(gomock.Len(1)).DoAndReturn(func(links []*linkgraph.Link) error {
			if !links[0].RetrievedAt.Equal(clock) {
				t.Errorf("page without FetchedAt marked retrieved at %v, want the clock's %v", links[0].RetrievedAt, clock)
			}
			return nil
		}),
	)
	u := NewGraphUpdater(g)
	u.now = func() time.Time { return clock }
	p := NewPayload(id, "http://example.com/", clock.Add(-time.Hour))
	defer p.MarkAsProcessed()
	if _, err := u.Process(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

// A batch of pages costs the calls of one page: one UpsertLinks for all
// the links, one UpsertEdges for all the edges, a RemoveStaleEdges only for
// the pages retrieved before, and one UpsertLinks marking them all.
// Pages p2 and p3 were retrieved before, p1 never.
func TestGraphUpdaterBatch(t *testing.T) {
	ctrl := gomock.NewController(t)
	g := mocks.NewMockGraph(ctrl)
	fetched := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ids := map[string]uuid.UUID{}
	idOf := func(u string) uuid.UUID {
		if _, ok := ids[u]; !ok {
			ids[u] = uuid.New()
		}
		return ids[u]
	}
	gomock.InOrder(
		g.EXPECT().UpsertLinks(gomock.Len(8)).DoAndReturn(func(links []*linkgraph.Link) error {
			for _, l := range links {
				l.ID = idOf(l.URL)
				if l.URL == "http://p3/" {
					// Stored as retrieved, though the iterator did not say.
					l.RetrievedAt = fetched.Add(-time.Hour)
				}
			}
			return nil
		}),
		g.EXPECT().UpsertEdges(gomock.Len(4)).DoAndReturn(func(edges []*linkgraph.Edge) error {
			want := [][2]string{{"http://p1/", "http://x/"}, {"http://p1/", "http://p2/"}, {"http://p2/", "http://x/"}, {"http://p3/", "http://p1/"}}
			for i, e := range edges {
				if e.Src != ids[want[i][0]] || e.Dst != ids[want[i][1]] {
					t.Errorf("edge %d is not %s -> %s", i, want[i][0], want[i][1])
				}
			}
			return nil
		}),
		g.EXPECT().RemoveStaleEdges(gomock.Any(), gomock.Any()).DoAndReturn(func(src uuid.UUID, _ time.Time) error {
			if src != ids["http://p2/"] {
				t.Errorf("stale edges removed from %v, want p2, retrieved before by the payload", src)
			}
			return nil
		}),
		g.EXPECT().RemoveStaleEdges(gomock.Any(), gomock.Any()).DoAndReturn(func(src uuid.UUID, _ time.Time) error {
			if src != ids["http://p3/"] {
				t.Errorf("stale edges removed from %v, want p3, retrieved before by the graph", src)
			}
			return nil
		}),
		g.EXPECT().UpsertLinks(gomock.Len(3)).DoAndReturn(func(links []*linkgraph.Link) error {
			for i, l := range links {
				if want := fmt.Sprintf("http://p%d/", i+1); l.URL != want || !l.RetrievedAt.Equal(fetched) {
					t.Errorf("mark %d = %q at %v, want %q at %v", i, l.URL, l.RetrievedAt, want, fetched)
				}
			}
			return nil
		}),
	)

	p1 := NewPayload(uuid.New(), "http://p1/", time.Time{})
	p1.Links = append(p1.Links, "http://x/", "http://p2/")
	p2 := NewPayload(uuid.New(), "http://p2/", fetched.Add(-time.Hour))
	p2.Links = append(p2.Links, "http://x/")
	p2.NoFollowLinks = append(p2.NoFollowLinks, "http://n/")
	p3 := NewPayload(uuid.New(), "http://p3/", time.Time{})
	p3.Links = append(p3.Links, "http://p1/")
	batch := []pipeline.Payload{p1, p2, p3}
	for _, pp := range batch {
		pp.(*Payload).FetchedAt = fetched
		defer pp.MarkAsProcessed()
	}
	if err := NewGraphUpdater(g).ProcessBatch(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	if batch[0] != p1 || batch[1] != p2 || batch[2] != p3 {
		t.Error("ProcessBatch changed the batch: every page must go on")
	}
}

func TestGraphUpdaterErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, failing := range []string{"links", "edges", "stale", "mark"} {
		t.Run(failing, func(t *testing.T) {
			ctrl := gomock.NewController(t)
			g := mocks.NewMockGraph(ctrl)
			fail := func(name string) error {
				if name == failing {
					return boom
				}
				return nil
			}
			calls := []any{g.EXPECT().UpsertLinks(gomock.Len(2)).Return(fail("links"))}
			if failing != "links" {
				calls = append(calls, g.EXPECT().UpsertEdges(gomock.Any()).Return(fail("edges")))
			}
			if failing != "links" && failing != "edges" {
				calls = append(calls, g.EXPECT().RemoveStaleEdges(gomock.Any(), gomock.Any()).Return(fail("stale")))
			}
			if failing == "mark" {
				calls = append(calls, g.EXPECT().UpsertLinks(gomock.Len(1)).Return(boom))
			}
			gomock.InOrder(calls...)
			p := NewPayload(uuid.New(), "http://example.com/", time.Now())
			defer p.MarkAsProcessed()
			p.Links = append(p.Links, "http://a/")
			if _, err := NewGraphUpdater(g).Process(context.Background(), p); !errors.Is(err, boom) {
				t.Fatalf("Process: err = %v, want boom", err)
			}
		})
	}
	t.Run("payload", func(t *testing.T) {
		g := mocks.NewMockGraph(gomock.NewController(t)) // no call expected
		err := NewGraphUpdater(g).ProcessBatch(context.Background(), []pipeline.Payload{foreignPayload{}})
		if !errors.Is(err, ErrUnexpectedPayload) {
			t.Fatalf("ProcessBatch(foreign payload): err = %v", err)
		}
		if _, err := NewTextIndexer(nil).Process(context.Background(), foreignPayload{}); !errors.Is(err, ErrUnexpectedPayload) {
			t.Fatalf("TextIndexer.Process(foreign payload): err = %v", err)
		}
		if err := NewTextIndexer(nil).ProcessBatch(context.Background(), []pipeline.Payload{foreignPayload{}}); !errors.Is(err, ErrUnexpectedPayload) {
			t.Fatalf("TextIndexer.ProcessBatch(foreign payload): err = %v", err)
		}
	})
}

func TestTextIndexer(t *testing.T) {
	ctrl := gomock.NewController(t)
	ix := mocks.NewMockIndexer(ctrl)
	id := uuid.New()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ix.EXPECT().Index(&textindex.Document{
		LinkID: id, URL: "http://example.com/", Title: "T", Content: "text", IndexedAt: now,
		ContentHash: textindex.ContentHash("T", "text"),
	}).Return(nil)

	ti := NewTextIndexer(ix)
	ti.now = func() time.Time { return now }
	p := NewPayload(id, "http://example.com/", time.Time{})
	defer p.MarkAsProcessed()
	p.Title, p.TextContent = "T", "text"
	if out, err := ti.Process(context.Background(), p); err != nil || out != p {
		t.Fatalf("Process = %v, %v", out, err)
	}

	// noindex: not indexed (the mock fails on any call), still passed on.
	p.NoIndex = true
	if out, err := ti.Process(context.Background(), p); err != nil || out != p {
		t.Fatalf("Process(noindex) = %v, %v", out, err)
	}
}

func TestTextIndexerError(t *testing.T) {
	ctrl := gomock.NewController(t)
	ix := mocks.NewMockIndexer(ctrl)
	ix.EXPECT().Index(gomock.Any()).Return(textindex.ErrMissingLinkID)
	p := NewPayload(uuid.Nil, "http://example.com/", time.Time{})
	defer p.MarkAsProcessed()
	if _, err := NewTextIndexer(ix).Process(context.Background(), p); !errors.Is(err, textindex.ErrMissingLinkID) {
		t.Fatalf("err = %v", err)
	}
}

// For an Indexer without IndexBatch, a batch is indexed with concurrent
// Index calls (so that an index can commit them together), skipping
// noindex pages, and returns only when every call has.
func TestTextIndexerBatch(t *testing.T) {
	ix := &concurrencyIndexer{release: make(chan struct{})}
	const n = 5
	batch := make([]pipeline.Payload, n+1)
	for i := range batch {
		p := NewPayload(uuid.New(), fmt.Sprintf("http://example.com/%d", i), time.Time{})
		p.NoIndex = i == n
		batch[i] = p
		defer p.MarkAsProcessed()
	}
	done := make(chan error, 1)
	go func() { done <- NewTextIndexer(ix).ProcessBatch(context.Background(), batch) }()
	// Every Index call is in flight at once before any returns.
	deadline := time.Now().Add(5 * time.Second)
	for ix.inFlight.Load() < n && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("ProcessBatch returned %v before its Index calls", err)
	default:
	}
	if got := ix.inFlight.Load(); got != n {
		t.Fatalf("%d Index calls in flight, want %d", got, n)
	}
	close(ix.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := ix.calls.Load(); got != n {
		t.Fatalf("%d pages indexed, want %d (the noindex page skipped)", got, n)
	}
}

func TestTextIndexerBatchError(t *testing.T) {
	ctrl := gomock.NewController(t)
	ix := mocks.NewMockIndexer(ctrl)
	ix.EXPECT().Index(gomock.Any()).DoAndReturn(func(doc *textindex.Document) error {
		if doc.URL == "http://example.com/1" {
			return textindex.ErrMissingLinkID
		}
		return nil
	}).Times(3)
	batch := make([]pipeline.Payload, 3)
	for i := range batch {
		batch[i] = NewPayload(uuid.New(), fmt.Sprintf("http://example.com/%d", i), time.Time{})
		defer batch[i].MarkAsProcessed()
	}
	err := NewTextIndexer(ix).ProcessBatch(context.Background(), batch)
	if !errors.Is(err, textindex.ErrMissingLinkID) {
		t.Fatalf("err = %v, want ErrMissingLinkID", err)
	}
}

// concurrencyIndexer counts the Index calls in flight and holds each until
// release is closed.
type concurrencyIndexer struct {
	inFlight, calls atomic.Int32
	release         chan struct{}
}

func (c *concurrencyIndexer) Index(*textindex.Document) error {
	c.inFlight.Add(1)
	<-c.release
	c.calls.Add(1)
	return nil
}

// foundRecorder is a Frontier that checks, for each Found call, that the
// links it reports are stored in the graph, with their IDs.
type foundRecorder struct {
	LinkFrontier // the methods the graph updater does not call
	graph        *graphmem.Graph
	t            *testing.T
	calls, pages atomic.Int64
}

func (f *foundRecorder) KnownLinkID(string) (uuid.UUID, bool) { return uuid.Nil, false }

func (f *foundRecorder) Found(_ context.Context, found []Found) error {
	f.calls.Add(1)
	for _, fp := range found {
		f.pages.Add(1)
		if fp.Page.PageID == uuid.Nil {
			f.t.Errorf("page %s found before it has its ID", fp.Page.URL)
		}
		for _, l := range fp.Links {
			if got, err := f.graph.FindLink(l.ID); err != nil || got.URL != l.URL {
				f.t.Errorf("link %s (%s) reported found but not stored: %v", l.URL, l.ID, err)
			}
		}
	}
	return nil
}

// TestGraphUpdaterUsesBatchViews stores pages with several graph writers
// at once and checks that each batch reports, to the pages' frontier, the
// links that batch stored (what a batch-scoped view of the graph once
// did), and that every page is marked retrieved.
func TestGraphUpdaterUsesBatchViews(t *testing.T) {
	mem := graphmem.New()
	fr := &foundRecorder{graph: mem, t: t}
	src := &payloadSource{}
	for i := range 200 {
		p := NewPayload(uuid.New(), fmt.Sprintf("http://site/%d", i), time.Time{})
		p.Links = append(p.Links, fmt.Sprintf("http://site/%d", (i+1)%200))
		p.track = newTracker(context.Background(), nil, fr)
		src.payloads = append(src.payloads, p)
	}
	stage := pipeline.BatchPool(NewGraphUpdater(mem), 7, 0, 3)
	if err := pipeline.New(stage).Process(context.Background(), src, nopSink{}); err != nil {
		t.Fatal(err)
	}
	if fr.calls.Load() == 0 || fr.pages.Load() != 200 {
		t.Fatalf("Found called %d times for %d pages, want every page once", fr.calls.Load(), fr.pages.Load())
	}
	it, err := mem.Links(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	retrieved := 0
	for it.Next() {
		if !it.Link().RetrievedAt.IsZero() {
			retrieved++
		}
	}
	if retrieved != 200 {
		t.Errorf("%d pages marked retrieved, want 200", retrieved)
	}
}

// payloadSource emits the given payloads.
type payloadSource struct {
	payloads []*Payload
	cur      *Payload
}

func (s *payloadSource) Next(context.Context) bool {
	if len(s.payloads) == 0 {
		return false
	}
	s.cur, s.payloads = s.payloads[0], s.payloads[1:]
	return true
}

func (s *payloadSource) Payload() pipeline.Payload { return s.cur }
func (s *payloadSource) Error() error              { return nil }

type nopSink struct{}

func (nopSink) Consume(context.Context, pipeline.Payload) error { return nil }

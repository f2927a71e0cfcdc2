package crawler

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/linksrus/linksrus/crawler/mocks"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/textindex"
)

func TestGraphUpdater(t *testing.T) {
	ctrl := gomock.NewController(t)
	g := mocks.NewMockGraph(ctrl)
	srcID, aID, bID, nID := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	fetched := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC)

	// One call per kind of write, whatever the number of links.
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
			}
			if !links[0].RetrievedAt.Equal(fetched) || !links[1].RetrievedAt.IsZero() {
				t.Errorf("RetrievedAt: page %v, link %v", links[0].RetrievedAt, links[1].RetrievedAt)
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
		g.EXPECT().RemoveStaleEdges(srcID, clock).Return(nil),
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

// A page without followed links still refreshes itself and drops all its
// old edges, without an empty UpsertEdges call.
func TestGraphUpdaterNoLinks(t *testing.T) {
	ctrl := gomock.NewController(t)
	g := mocks.NewMockGraph(ctrl)
	id := uuid.New()
	g.EXPECT().UpsertLinks(gomock.Len(1)).DoAndReturn(func(links []*linkgraph.Link) error {
		links[0].ID = id
		return nil
	})
	g.EXPECT().RemoveStaleEdges(id, gomock.Any()).Return(nil)
	p := NewPayload(id, "http://example.com/", time.Time{})
	defer p.MarkAsProcessed()
	if _, err := NewGraphUpdater(g).Process(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

func TestGraphUpdaterErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, failing := range []string{"links", "edges", "stale"} {
		t.Run(failing, func(t *testing.T) {
			ctrl := gomock.NewController(t)
			g := mocks.NewMockGraph(ctrl)
			fail := func(name string) error {
				if name == failing {
					return boom
				}
				return nil
			}
			g.EXPECT().UpsertLinks(gomock.Any()).Return(fail("links"))
			if failing != "links" {
				g.EXPECT().UpsertEdges(gomock.Any()).Return(fail("edges"))
			}
			if failing == "stale" {
				g.EXPECT().RemoveStaleEdges(gomock.Any(), gomock.Any()).Return(boom)
			}
			p := NewPayload(uuid.New(), "http://example.com/", time.Time{})
			defer p.MarkAsProcessed()
			p.Links = append(p.Links, "http://a/")
			if _, err := NewGraphUpdater(g).Process(context.Background(), p); !errors.Is(err, boom) {
				t.Fatalf("err = %v, want boom", err)
			}
		})
	}
}

func TestTextIndexer(t *testing.T) {
	ctrl := gomock.NewController(t)
	ix := mocks.NewMockIndexer(ctrl)
	id := uuid.New()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ix.EXPECT().Index(&textindex.Document{
		LinkID: id, URL: "http://example.com/", Title: "T", Content: "text", IndexedAt: now,
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

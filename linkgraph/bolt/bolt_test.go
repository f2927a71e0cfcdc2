package bolt

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/graphtest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) {
	graphtest.Run(t, func(t *testing.T) linkgraph.Graph {
		g, err := Open(t.Context(), filepath.Join(t.TempDir(), "graph.db"), Options{})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return g
	})
}

func TestReopenKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "dir", "graph.db")
	g, err := linkgraph.Open(t.Context(), "bolt://"+path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	at := time.Date(2025, 1, 2, 3, 4, 5, 6000, time.UTC)
	links := []*linkgraph.Link{{URL: "https://a.example/", RetrievedAt: at}, {URL: "https://b.example/"}}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatalf("UpsertLinks: %v", err)
	}
	e := &linkgraph.Edge{Src: links[0].ID, Dst: links[1].ID, UpdatedAt: at}
	if err := g.UpsertEdge(e); err != nil {
		t.Fatalf("UpsertEdge: %v", err)
	}
	if err := g.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	g2, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer g2.Close()
	for _, want := range links {
		got, err := g2.FindLink(want.ID)
		if err != nil {
			t.Fatalf("FindLink after reopen: %v", err)
		}
		if *got != *want {
			t.Fatalf("after reopen got %+v, want %+v", got, want)
		}
	}
	it, err := g2.Edges(uuid.Nil, uuid.Nil, at.Add(time.Second))
	if err != nil {
		t.Fatalf("Edges: %v", err)
	}
	defer it.Close()
	if !it.Next() || *it.Edge() != *e {
		t.Fatalf("edge after reopen: %+v (error %v), want %+v", it.Edge(), it.Error(), e)
	}
}

func TestSecondOpenFailsFast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graph.db")
	g, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer g.Close()
	start := time.Now()
	g2, err := Open(t.Context(), path, Options{LockTimeout: 100 * time.Millisecond})
	if !errors.Is(err, linkgraph.ErrLocked) {
		if g2 != nil {
			g2.Close()
		}
		t.Fatalf("second Open error = %v, want ErrLocked", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("second Open took %v", d)
	}
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		raw    string
		path   string
		nosync bool
		bad    bool
	}{
		{raw: "bolt:///var/lib/graph.db", path: "/var/lib/graph.db"},
		{raw: "bolt:graph.db", path: "graph.db"},
		{raw: "bolt:data/graph.db?nosync=1", path: "data/graph.db", nosync: true},
		{raw: "bolt:///g.db?nosync=false", path: "/g.db"},
		{raw: "bolt://host/g.db", bad: true},
		{raw: "bolt://", bad: true},
		{raw: "bolt:///", bad: true},
		{raw: "bolt:///g.db?nosync=maybe", bad: true},
		{raw: "bolt:///g.db?cache=1", bad: true},
	} {
		u, err := url.Parse(tc.raw)
		if err != nil {
			t.Fatalf("url.Parse(%q): %v", tc.raw, err)
		}
		path, opts, err := parseURL(u)
		if tc.bad {
			if err == nil {
				t.Errorf("parseURL(%q) = %q, want an error", tc.raw, path)
			}
			continue
		}
		if err != nil || path != tc.path || opts.NoSync != tc.nosync {
			t.Errorf("parseURL(%q) = %q, %+v, %v; want %q, nosync %v", tc.raw, path, opts, err, tc.path, tc.nosync)
		}
	}
}

// New links get time-ordered IDs, so that links found later sort after
// those found before (see newLinkID).
func TestNewLinkIDsAreTimeOrdered(t *testing.T) {
	g, err := Open(t.Context(), filepath.Join(t.TempDir(), "graph.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var prev uuid.UUID // the greatest ID of the batches before
	for i := range 20 {
		batch := []*linkgraph.Link{
			{URL: "http://example.com/z" + strconv.Itoa(i)},
			{URL: "http://example.com/a" + strconv.Itoa(i)},
		}
		if err := g.UpsertLinks(batch); err != nil {
			t.Fatal(err)
		}
		greatest := prev
		for _, l := range batch {
			if l.ID.Version() != 7 {
				t.Fatalf("link %s has a version %d ID", l.URL, l.ID.Version())
			}
			if linkgraph.CompareIDs(l.ID, prev) <= 0 {
				t.Fatalf("link %s: ID %s does not sort after the earlier batches' %s", l.URL, l.ID, prev)
			}
			if linkgraph.CompareIDs(l.ID, greatest) > 0 {
				greatest = l.ID
			}
		}
		prev = greatest
	}
}

// EdgePairs lists what Edges lists, ends only, with the same time bound,
// and stops at its function's error.
func TestEdgePairs(t *testing.T) {
	g, err := Open(t.Context(), filepath.Join(t.TempDir(), "graph.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	links := make([]*linkgraph.Link, 5)
	for i := range links {
		links[i] = &linkgraph.Link{URL: "http://example.com/" + strconv.Itoa(i)}
	}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	base := time.Now().Truncate(time.Second)
	var edges []*linkgraph.Edge
	for i, src := range links {
		for j, dst := range links {
			if (i+j)%2 == 0 {
				edges = append(edges, &linkgraph.Edge{Src: src.ID, Dst: dst.ID, UpdatedAt: base.Add(time.Duration(i) * time.Minute)})
			}
		}
	}
	if err := g.UpsertEdges(edges); err != nil {
		t.Fatal(err)
	}
	type pair struct{ src, dst uuid.UUID }
	for _, before := range []time.Time{base, base.Add(2*time.Minute + time.Second), base.Add(time.Hour)} {
		var want, got []pair
		it, err := g.Edges(uuid.Nil, uuid.Nil, before)
		if err != nil {
			t.Fatal(err)
		}
		for it.Next() {
			want = append(want, pair{it.Edge().Src, it.Edge().Dst})
		}
		if err := errors.Join(it.Error(), it.Close()); err != nil {
			t.Fatal(err)
		}
		err = g.EdgePairs(before, func(src, dst uuid.UUID) error {
			got = append(got, pair{src, dst})
			return nil
		})
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("EdgePairs(%v) = %v, %v; Edges lists %v", before.Sub(base), got, err, want)
		}
	}
	stop := errors.New("stop")
	n := 0
	err = g.EdgePairs(base.Add(time.Hour), func(uuid.UUID, uuid.UUID) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Fatalf("EdgePairs = %v after %d pairs, want the function's error after 3", err, n)
	}
}

// TestOpenURLLockedIsErrLocked: through linkgraph.Open, the way a command
// reaches a backend, a file another process holds is reported as
// linkgraph.ErrLocked, which the caller recognises without importing this
// package.
func TestOpenURLLockedIsErrLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graph.db")
	g, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer g.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	g2, err := linkgraph.Open(ctx, "bolt://"+filepath.ToSlash(path))
	if !errors.Is(err, linkgraph.ErrLocked) {
		if g2 != nil {
			g2.Close()
		}
		t.Fatalf("linkgraph.Open of a held file: %v, want linkgraph.ErrLocked", err)
	}
}

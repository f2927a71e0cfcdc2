package bolt_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/bolt"
)

// A graph.db with random bytes written over parts of it: opening and
// using it give errors (linkgraph.ErrCorrupt where the damage shows),
// never a panic or a fault that takes the process down. Each case is a
// different corruption of the same file, drawn from a fixed seed.
func TestCorruptFileIsAnError(t *testing.T) {
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean.db")
	data := buildGraphFile(t, clean, 3000)
	// The clean file opens and reads without complaint.
	if useDamaged(t, clean) {
		t.Fatal("the undamaged file was reported corrupt")
	}

	const cases = 150
	damaged := 0
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, 7))
		b := append([]byte(nil), data...)
		for range 1 + rng.IntN(4) {
			off := rng.IntN(len(b))
			for i := off; i < min(len(b), off+1+rng.IntN(512)); i++ {
				b[i] = byte(rng.Uint32())
			}
		}
		path := filepath.Join(dir, fmt.Sprintf("damaged-%d.db", seed))
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if useDamaged(t, path) {
			damaged++
		}
	}
	t.Logf("%d of %d damaged files reported as corrupt", damaged, cases)
	if damaged < cases/4 {
		t.Errorf("only %d of %d damaged files were noticed", damaged, cases)
	}
}

// useDamaged opens path and reads and writes it as a crawl would, and
// reports whether damage was reported as ErrCorrupt. Other errors are
// acceptable too (bbolt checks its meta pages itself); a panic is not.
func useDamaged(t *testing.T, path string) (corrupt bool) {
	t.Helper()
	note := func(err error) {
		if errors.Is(err, linkgraph.ErrCorrupt) {
			corrupt = true
		}
	}
	g, err := bolt.Open(t.Context(), path, bolt.Options{NoSync: true})
	if err != nil {
		note(err)
		return corrupt
	}
	defer g.Close()
	it, err := g.Links(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	note(err)
	if err == nil {
		for it.Next() {
			_, err := g.FindLink(it.Link().ID)
			note(err)
		}
		note(it.Error())
		it.Close()
	}
	eit, err := g.Edges(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	note(err)
	if err == nil {
		for eit.Next() {
		}
		note(eit.Error())
		eit.Close()
	}
	note(g.EdgePairs(time.Now().Add(time.Hour), func(uuid.UUID, uuid.UUID) error { return nil }))
	note(g.UpsertLinks([]*linkgraph.Link{{URL: "https://example.com/new"}}))
	return corrupt
}

// buildGraphFile writes a graph of n links, each linking to the next, to
// path, and returns the file's bytes.
func buildGraphFile(t testing.TB, path string, n int) []byte {
	t.Helper()
	g, err := bolt.Open(t.Context(), path, bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	links := make([]*linkgraph.Link, n)
	for i := range links {
		links[i] = &linkgraph.Link{URL: fmt.Sprintf("https://example.com/page/%d", i), RetrievedAt: time.Now()}
	}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	edges := make([]*linkgraph.Edge, 0, n)
	for i := 1; i < n; i++ {
		edges = append(edges, &linkgraph.Edge{Src: links[i-1].ID, Dst: links[i].ID})
	}
	if err := g.UpsertEdges(edges); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

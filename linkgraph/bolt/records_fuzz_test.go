package bolt

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/internal/graphutil"
	bbolt "go.etcd.io/bbolt"
)

// FuzzEdgeRecord stores the fuzzer's bytes as a page's edge record and
// uses it as a crawl would: iterating, upserting an edge, removing stale
// ones. A record that does not check must fail each with an error wrapping
// linkgraph.ErrCorrupt, never panic; one that checks must read back entry
// for entry, and what a merge or a removal writes must check too.
func FuzzEdgeRecord(f *testing.F) {
	f.Add([]byte(record([2]int64{1, 10}, [2]int64{2, math.MinInt64}, [2]int64{200, math.MaxInt64})))
	f.Add([]byte(record([2]int64{3, 1})))
	f.Add([]byte(record([2]int64{3, 1}, [2]int64{3, 2})))
	f.Add([]byte(record([2]int64{3, 1}, [2]int64{2, 2}))[:47])
	f.Add([]byte{})

	g, err := Open(f.Context(), filepath.Join(f.TempDir(), "graph.db"), Options{NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { g.Close() })
	links := []*linkgraph.Link{{URL: "https://src.example/"}, {URL: "https://dst.example/"}}
	if err := g.UpsertLinks(links); err != nil {
		f.Fatal(err)
	}
	src, dst := links[0].ID, links[1].ID

	f.Fuzz(func(t *testing.T, v []byte) {
		rec, checkErr := checkEdgeRecord(src[:], v)
		if checkErr != nil && !errors.Is(checkErr, linkgraph.ErrCorrupt) {
			t.Fatalf("checkEdgeRecord error %v does not wrap ErrCorrupt", checkErr)
		}
		valid := checkErr == nil
		expect := func(op string, err error) {
			t.Helper()
			switch {
			case valid && err != nil:
				t.Fatalf("%s on a record that checks: %v", op, err)
			case !valid && !errors.Is(err, linkgraph.ErrCorrupt):
				t.Fatalf("%s on a record that does not check (%v): error %v, want ErrCorrupt", op, checkErr, err)
			}
		}
		plant(t, g, src, v)
		got, err := readAll(g)
		expect("Edges", err)
		if valid {
			// Only the latest time there is is not before the bound.
			var want []linkgraph.Edge
			for i := range rec.len() {
				if rec.micros(i) < math.MaxInt64 {
					want = append(want, rec.edge(src, i))
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("iterated %d edges %+v, want %d: %+v", len(got), got, len(want), want)
			}
		}

		e := &linkgraph.Edge{Src: src, Dst: dst, UpdatedAt: time.UnixMicro(rec.micros0()).UTC()}
		expect("UpsertEdge", g.UpsertEdge(e))
		if valid {
			checkStored(t, g, src)
		}

		plant(t, g, src, v)
		cut := time.UnixMicro(rec.micros0()).UTC()
		expect("RemoveStaleEdges", g.RemoveStaleEdges(src, cut))
		if valid {
			checkStored(t, g, src)
		}
	})
}

// micros0 is the first entry's time, or 0: a bound that splits the fuzzer's
// records in interesting places.
func (r edgeRecord) micros0() int64 {
	if r.len() == 0 {
		return 0
	}
	return r.micros(0)
}

// plant stores v as src's edge record, bypassing every check.
func plant(t *testing.T, g *Graph, src uuid.UUID, v []byte) {
	t.Helper()
	err := g.db.update(func(tx *bbolt.Tx) error { return tx.Bucket(bucketOut).Put(src[:], v) })
	if err != nil {
		t.Fatal(err)
	}
}

// readAll iterates over every edge updated before the latest time there is.
func readAll(g *Graph) ([]linkgraph.Edge, error) {
	it, err := g.Edges(uuid.Nil, uuid.Nil, time.UnixMicro(math.MaxInt64))
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []linkgraph.Edge
	for it.Next() {
		out = append(out, *it.Edge())
	}
	return out, it.Error()
}

// checkStored checks that src's record, if it has one, checks: the graph
// never writes a record it could not read back.
func checkStored(t *testing.T, g *Graph, src uuid.UUID) {
	t.Helper()
	err := g.db.view(func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucketOut).Get(src[:])
		if v == nil {
			return nil
		}
		_, err := checkEdgeRecord(src[:], v)
		return err
	})
	if err != nil {
		t.Fatalf("stored record: %v", err)
	}
}

// FuzzLinkRecord decodes the fuzzer's bytes as a link record, which must
// fail or give a link, never panic; and a link the graph accepts (no NUL in
// URL or validators) must encode and decode back to itself.
func FuzzLinkRecord(f *testing.F) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	f.Add(encodeLink(at, "https://example.com/", `"v1"`, "Mon, 02 Jan 2006 15:04:05 GMT"), "https://example.com/a", `W/"x"`, "")
	f.Add(encodeLink(time.Time{}, "https://example.com/", "", ""), "https://example.com/b", "", "Tue, 03 Jan 2006 00:00:00 GMT")
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x00\x01https://e/\x00only-etag"), "u", "e", "l")
	f.Add([]byte{1, 2, 3}, "", "", "")
	id := uuid.New()
	f.Fuzz(func(t *testing.T, v []byte, url, etag, lastMod string) {
		if l, err := decodeLink(id[:], v); err == nil && l.ID != id {
			t.Fatalf("decoded link has ID %s, want %s", l.ID, id)
		}
		candidate := &linkgraph.Link{URL: url, ETag: etag, LastModified: lastMod}
		if graphutil.ValidateLink(candidate) != nil {
			return
		}
		got, err := decodeLink(id[:], encodeLink(at, url, etag, lastMod))
		if err != nil {
			t.Fatalf("decode(encode(%q, %q, %q)): %v", url, etag, lastMod, err)
		}
		if got.URL != url || got.ETag != etag || got.LastModified != lastMod || !got.RetrievedAt.Equal(at) {
			t.Fatalf("decode(encode(%q, %q, %q)) = %+v", url, etag, lastMod, got)
		}
	})
}

package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
	bbolt "go.etcd.io/bbolt"
)

// writeV1File writes a graph of schema version 1 to path: links as
// version 2 stores them (their layout did not change), edges one key each
// (src || dst -> random edge ID, updatedAt). It returns the edges written.
func writeV1File(t *testing.T, path string, nLinks, maxFanout int) []linkgraph.Edge {
	t.Helper()
	g, err := Open(t.Context(), path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	links := make([]*linkgraph.Link, nLinks)
	for i := range links {
		links[i] = &linkgraph.Link{URL: fmt.Sprintf("https://v1.example/%d", i)}
	}
	if err := g.UpsertLinks(links); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)
	var edges []linkgraph.Edge
	for i, src := range links {
		// Fan-outs from 0 to maxFanout, so sources straddle the
		// migration's transactions in every way.
		for j := range i % (maxFanout + 1) {
			dst := links[(i*31+j*17)%len(links)]
			if slices.ContainsFunc(edges, func(e linkgraph.Edge) bool { return e.Src == src.ID && e.Dst == dst.ID }) {
				continue
			}
			at := t0.Add(time.Duration(i*1000+j) * time.Microsecond)
			if j == 0 {
				at = time.Time{} // never seen: the oldest time there is
			}
			edges = append(edges, linkgraph.Edge{Src: src.ID, Dst: dst.ID, UpdatedAt: at})
		}
	}
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bbolt.Tx) error {
		if err := tx.Bucket(bucketMeta).Put(keyVersion, []byte{1}); err != nil {
			return err
		}
		if err := tx.DeleteBucket(bucketOut); err != nil {
			return err
		}
		b, err := tx.CreateBucket(bucketV1Edges)
		if err != nil {
			return err
		}
		for _, e := range edges {
			id := uuid.New()
			v := binary.BigEndian.AppendUint64(id[:], uint64(e.UpdatedAt.UnixMicro()))
			if err := b.Put(append(e.Src[:], e.Dst[:]...), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return edges
}

// setMigrateBatch lowers migrateBatch for one test.
func setMigrateBatch(t *testing.T, n int) {
	old := migrateBatch
	migrateBatch = n
	t.Cleanup(func() { migrateBatch = old })
}

// checkMigrated opens path and checks that it holds exactly edges, with
// their times and derived IDs, in schema version 2 with nothing of the
// migration left.
func checkMigrated(t *testing.T, path string, edges []linkgraph.Edge) {
	t.Helper()
	g, err := Open(t.Context(), path, Options{NoSync: true})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer g.Close()
	want := make(map[[2]uuid.UUID]time.Time, len(edges))
	for _, e := range edges {
		want[[2]uuid.UUID{e.Src, e.Dst}] = e.UpdatedAt
	}
	it, err := g.Edges(uuid.Nil, uuid.Nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for it.Next() {
		e := it.Edge()
		at, ok := want[[2]uuid.UUID{e.Src, e.Dst}]
		switch {
		case !ok:
			t.Fatalf("edge %s -> %s appeared from nowhere", e.Src, e.Dst)
		case !e.UpdatedAt.Equal(at):
			t.Fatalf("edge %s -> %s updated at %v, want %v", e.Src, e.Dst, e.UpdatedAt, at)
		case e.ID != edgeID(e.Src, e.Dst):
			t.Fatalf("edge %s -> %s has ID %s, want the derived one", e.Src, e.Dst, e.ID)
		}
		n++
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	if n != len(edges) {
		t.Fatalf("%d edges after migration, want %d", n, len(edges))
	}
	err = g.db.view(func(tx *bbolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if v := meta.Get(keyVersion); len(v) != 1 || v[0] != schemaVersion {
			t.Errorf("schema version %v, want %d", v, schemaVersion)
		}
		if tx.Bucket(bucketV1Edges) != nil || meta.Get(keyMigrated) != nil {
			t.Errorf("the migration left its bucket or progress key")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestMigrateV1(t *testing.T) {
	for _, batch := range []int{7, 100_000} {
		t.Run(fmt.Sprint("batch=", batch), func(t *testing.T) {
			setMigrateBatch(t, batch)
			path := filepath.Join(t.TempDir(), "graph.db")
			edges := writeV1File(t, path, 200, 12)
			checkMigrated(t, path, edges)
		})
	}
}

// A migration cut short after some transactions: the file is refused by a
// program that knows only version 1 (its version is already the new one),
// and the next Open finishes the migration.
func TestMigrateV1Interrupted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graph.db")
	edges := writeV1File(t, path, 200, 12)
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(initSchema); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		err := db.Update(func(tx *bbolt.Tx) error {
			done, err := migrateStep(tx, 50)
			if done {
				t.Fatal("the migration finished in 150 edges")
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	err = db.View(func(tx *bbolt.Tx) error {
		if v := tx.Bucket(bucketMeta).Get(keyVersion); len(v) != 1 || v[0] != schemaVersion {
			t.Errorf("half-migrated file has version %v, want %d", v, schemaVersion)
		}
		if tx.Bucket(bucketMeta).Get(keyMigrated) == nil {
			t.Errorf("half-migrated file has no progress key")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	setMigrateBatch(t, 64)
	checkMigrated(t, path, edges)
}

// A damaged version 1 edge stops the migration with an error naming it.
func TestMigrateV1Corrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graph.db")
	edges := writeV1File(t, path, 50, 5)
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		e := edges[len(edges)/2]
		return tx.Bucket(bucketV1Edges).Put(append(e.Src[:], e.Dst[:]...), []byte("short"))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(t.Context(), path, Options{})
	if err == nil {
		g.Close()
		t.Fatal("a damaged version 1 file opened")
	}
	if !errors.Is(err, linkgraph.ErrCorrupt) || !strings.Contains(err.Error(), "migrate edges") {
		t.Fatalf("error %v, want ErrCorrupt from the migration", err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graph.db")
	g, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error { return tx.Bucket(bucketMeta).Put(keyVersion, []byte{schemaVersion + 1}) })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if g, err := Open(t.Context(), path, Options{}); err == nil || !strings.Contains(err.Error(), "newer linksrus") {
		if g != nil {
			g.Close()
		}
		t.Fatalf("Open of a newer file: %v, want it refused", err)
	}
}

// A file of version 2 (link records without validators) is a valid file of
// version 3: Open raises its version, its links read back with no
// validators, and new retrievals store theirs.
func TestOpenV2File(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graph.db")
	g, err := Open(t.Context(), path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	l := &linkgraph.Link{URL: "https://v2.example/", RetrievedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	if err := g.UpsertLink(l); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		// The record as version 2 wrote it: time and URL only.
		if err := tx.Bucket(bucketLinks).Put(l.ID[:], encodeLink(l.RetrievedAt, l.URL, "", "")); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keyVersion, []byte{2})
	})
	if err == nil {
		err = db.Close()
	}
	if err != nil {
		t.Fatal(err)
	}

	g, err = Open(t.Context(), path, Options{NoSync: true})
	if err != nil {
		t.Fatalf("open a version 2 file: %v", err)
	}
	defer g.Close()
	got, err := g.FindLink(l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.URL != l.URL || got.ETag != "" || got.LastModified != "" {
		t.Fatalf("version 2 link read back as %+v", got)
	}
	next := &linkgraph.Link{URL: l.URL, RetrievedAt: l.RetrievedAt.Add(time.Hour), ETag: `"x"`, LastModified: "Thu, 01 Jan 2026 00:00:00 GMT"}
	if err := g.UpsertLink(next); err != nil {
		t.Fatal(err)
	}
	if got, err = g.FindLink(l.ID); err != nil || got.ETag != `"x"` || got.LastModified != next.LastModified || got.URL != l.URL {
		t.Fatalf("after a retrieval with validators: %+v, %v", got, err)
	}
	err = g.db.view(func(tx *bbolt.Tx) error {
		if v := tx.Bucket(bucketMeta).Get(keyVersion); len(v) != 1 || v[0] != schemaVersion {
			t.Errorf("schema version %v after Open, want %d", v, schemaVersion)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

// TestMigrateDuplicates opens an index written before duplicate content
// (schema version 2): its documents stay searchable and canonical, and
// join a group once indexed again with a hash.
func TestMigrateDuplicates(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:2] {
		if _, err := db.ExecContext(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	old := uuid.New()
	for _, q := range []string{
		`PRAGMA user_version = 2`,
		fmt.Sprintf(`INSERT INTO docs (id, link_id, page_rank) VALUES (1, x'%x', 0.5)`, old[:]),
		`INSERT INTO bodies (id, url, title, content, indexed_at) VALUES (1, 'https://example.com/old', 'Old', 'legacy words', '2025-01-01T00:00:00Z')`,
		`INSERT INTO docs_fts (rowid, body) VALUES (1, 'Old
legacy words')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	idx, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("Open migrates: %v", err)
	}
	defer idx.Close()
	results := func() []*textindex.Document {
		t.Helper()
		it, err := idx.Search(textindex.Query{Expression: "legacy"})
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		var out []*textindex.Document
		for it.Next() {
			out = append(out, it.Document())
		}
		return out
	}
	if got := results(); len(got) != 1 || got[0].LinkID != old || got[0].ContentHash != "" {
		t.Fatalf("after migration: %+v", got)
	}
	dup := &textindex.Document{LinkID: uuid.New(), URL: "https://example.com/old?x", Title: "Old", Content: "legacy words",
		IndexedAt: time.Now(), ContentHash: textindex.ContentHash("Old", "legacy words")}
	again := &textindex.Document{LinkID: old, URL: "https://example.com/old", Title: "Old", Content: "legacy words",
		IndexedAt: time.Now(), ContentHash: dup.ContentHash}
	if err := idx.IndexBatch([]*textindex.Document{dup, again}); err != nil {
		t.Fatal(err)
	}
	got := results()
	if len(got) != 1 || got[0].LinkID != old || len(got[0].AlsoAt) != 1 || got[0].AlsoAt[0] != dup.URL || got[0].PageRank != 0.5 {
		t.Fatalf("re-indexed with a duplicate: %+v", got)
	}
	if n, err := idx.Count(ctx); err != nil || n != 1 {
		t.Fatalf("Count = %d, %v", n, err)
	}
}

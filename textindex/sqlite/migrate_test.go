package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
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
	old := uuid.New()
	idx := openOld(t, 2,
		fmt.Sprintf(`INSERT INTO docs (id, link_id, page_rank) VALUES (1, x'%x', 0.5)`, old[:]),
		`INSERT INTO bodies (id, url, title, content, indexed_at) VALUES (1, 'https://example.com/old', 'Old', 'legacy words', '2025-01-01T00:00:00Z')`,
		`INSERT INTO docs_fts (rowid, body) VALUES (1, 'Old
legacy words')`)
	results := func() []*textindex.Document { return searchDocs(t, idx, "legacy") }
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

// TestMigrateFields opens an index written before fields (schema version
// 3), whose full-text table held a document as one text: the table is
// rebuilt from the stored documents, with the title and the URL's path
// terms as fields of their own, and searches weigh them at once, without
// the pages being indexed again.
func TestMigrateFields(t *testing.T) {
	titled, mentioned, alias := uuid.New(), uuid.New(), uuid.New()
	idx := openOld(t, 3,
		fmt.Sprintf(`INSERT INTO docs (id, link_id) VALUES (1, x'%x'), (2, x'%x'), (3, x'%x')`, titled[:], mentioned[:], alias[:]),
		`INSERT INTO bodies (id, url, title, content, indexed_at, canon) VALUES
			(1, 'https://example.com/docs/routine-maintenance.html', 'Vacuum', 'how to keep tables in shape', '2025-01-01T00:00:00Z', 1),
			(2, 'https://example.com/docs/other.html', 'Other things', 'vacuum and vacuum again, among other things', '2025-01-01T00:00:00Z', 1),
			(3, 'https://example.com/docs/alias.html', 'Alias', 'not searchable', '2025-01-01T00:00:00Z', 0)`,
		`INSERT INTO docs_fts (rowid, body) VALUES
			(1, 'Vacuum
how to keep tables in shape'),
			(2, 'Other things
vacuum and vacuum again, among other things')`)
	search := func(expr string) []uuid.UUID {
		t.Helper()
		var out []uuid.UUID
		for _, d := range searchDocs(t, idx, expr) {
			out = append(out, d.LinkID)
		}
		return out
	}
	if got := search("vacuum"); len(got) != 2 || got[0] != titled {
		t.Errorf("vacuum after migration: %v, want the page titled Vacuum (%v) first, then %v", got, titled, mentioned)
	}
	if got := search("maintenance"); len(got) != 1 || got[0] != titled {
		t.Errorf("maintenance, a word of a URL's path only: %v, want %v", got, titled)
	}
	if got := search("searchable"); len(got) != 0 {
		t.Errorf("an alias's text became searchable: %v", got)
	}
}

// TestMigrateWordForms opens an index written before stemming (schema
// version 4): its full-text table is rebuilt with each field's stems, in
// English (the language of documents of before is unknown), so other
// forms of a word find its pages at once, the form asked for first.
func TestMigrateWordForms(t *testing.T) {
	asked, other := uuid.New(), uuid.New()
	idx := openOld(t, 4,
		fmt.Sprintf(`INSERT INTO docs (id, link_id) VALUES (1, x'%x'), (2, x'%x')`, asked[:], other[:]),
		`INSERT INTO bodies (id, url, title, content, indexed_at, canon) VALUES
			(1, 'https://example.com/a', 'Notes', 'the tables were vacuumed', '2025-01-01T00:00:00Z', 1),
			(2, 'https://example.com/b', 'Notes', 'vacuuming tables weekly', '2025-01-01T00:00:00Z', 1)`,
		`INSERT INTO docs_fts (rowid, title, url, body) VALUES
			(1, 'Notes', 'a', 'the tables were vacuumed'),
			(2, 'Notes', 'b', 'vacuuming tables weekly')`)
	var got []uuid.UUID
	for _, d := range searchDocs(t, idx, "vacuumed") {
		got = append(got, d.LinkID)
	}
	if !slices.Equal(got, []uuid.UUID{asked, other}) {
		t.Errorf("vacuumed after migration: %v, want %v then %v", got, asked, other)
	}
}

// openOld writes an index at schema version (the first version
// migrations), runs stmts on it, and opens it as a program of today does,
// migrating it.
func openOld(t *testing.T, version int, stmts ...string) *Index {
	t.Helper()
	ctx := context.Background()
	// The old migrations call the package's SQL functions, which Open
	// would register only after them.
	if err := registerFuncs(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "index.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(append(slices.Clone(migrations[:version]), fmt.Sprintf(`PRAGMA user_version = %d`, version)), stmts...) {
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
	t.Cleanup(func() { idx.Close() })
	return idx
}

// searchDocs returns the results of a match query for expr, in order.
func searchDocs(t *testing.T, idx *Index, expr string) []*textindex.Document {
	t.Helper()
	it, err := idx.Search(textindex.Query{Expression: expr})
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

// TestMigrateAnchors opens an index written before anchor text (schema
// version 5): its documents stay found, have no links, and get the anchor
// text of pages indexed since that link to them.
func TestMigrateAnchors(t *testing.T) {
	old := uuid.New()
	idx := openOld(t, 5, fmt.Sprintf(`INSERT INTO docs (id, link_id) VALUES (1, X'%x');
		INSERT INTO bodies (id, url, title, content, indexed_at) VALUES (1, 'https://example.com/psql', 'Psql', 'the terminal', '2026-01-01T00:00:00Z');
		INSERT INTO docs_fts (rowid, title, url, body) VALUES (1, 'Psql', 'psql', 'the terminal')`, old[:]))
	source := &textindex.Document{LinkID: uuid.New(), URL: "https://example.com/tools", Title: "Tools", Content: "tools",
		Links: []textindex.Link{{URL: "https://example.com/psql", Text: "interactive terminal"}}}
	if err := idx.Index(source); err != nil {
		t.Fatal(err)
	}
	if err := idx.UpdateAnchors(context.Background()); err != nil {
		t.Fatal(err)
	}
	d, err := idx.FindByID(old)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Links) != 0 || !slices.Equal(d.Anchors, []string{"interactive terminal"}) {
		t.Errorf("document of before: links %q, anchors %q", d.Links, d.Anchors)
	}
	if got := searchDocs(t, idx, "terminal"); len(got) != 1 || got[0].LinkID != old {
		t.Errorf("terminal after migration: %v", got)
	}
}

// TestMigrateHeadings opens an index written before headings (schema
// version 6): its full-text table is rebuilt with a headings field, its
// documents stay found and have no headings, and a page indexed since
// with a heading comes first for the heading's word, though the page of
// before mentions it more (and last when headings weigh nothing).
func TestMigrateHeadings(t *testing.T) {
	old := uuid.New()
	idx := openOld(t, 6, fmt.Sprintf(`INSERT INTO docs (id, link_id) VALUES (1, X'%x');
		INSERT INTO bodies (id, url, title, content, indexed_at, lang) VALUES
			(1, 'https://example.com/notes', 'Notes', 'upgrades of the cluster; upgrades need a restart', '2026-01-01T00:00:00Z', 'en');
		INSERT INTO docs_fts (rowid, title, url, body) VALUES (1, 'Notes', 'notes', 'upgrades of the cluster; upgrades need a restart')`, old[:]))
	d, err := idx.FindByID(old)
	if err != nil {
		t.Fatal(err)
	}
	if d.Headings != "" || d.Content != "upgrades of the cluster; upgrades need a restart" {
		t.Errorf("document of before: headings %q, content %q", d.Headings, d.Content)
	}
	if got := searchDocs(t, idx, "restarting"); len(got) != 1 || got[0].LinkID != old {
		t.Errorf("restarting (a stem of the text) after migration: %v", got)
	}
	guide := &textindex.Document{LinkID: uuid.New(), URL: "https://example.com/guide", Title: "Guide",
		Headings: "Upgrades", Content: "Upgrades\nstop the cluster, then start it again",
		IndexedAt: time.Now().UTC().Truncate(time.Microsecond)}
	if err := idx.Index(guide); err != nil {
		t.Fatal(err)
	}
	got := searchDocs(t, idx, "upgrades")
	if len(got) != 2 || got[0].LinkID != guide.LinkID || got[1].LinkID != old {
		t.Fatalf("upgrades: %v, want the guide (%v), whose heading it is, then %v", got, guide.LinkID, old)
	}
	if got[0].Headings != guide.Headings || got[1].Headings != "" {
		t.Errorf("upgrades: headings %q and %q, want %q and none", got[0].Headings, got[1].Headings, guide.Headings)
	}
	it, err := idx.Search(textindex.Query{Expression: "upgrades", Weights: textindex.Weights{Title: 10, URL: 5, Body: 1, Stem: 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if !it.Next() || it.Document().LinkID != old {
		t.Errorf("upgrades, the headings weighing nothing: the page of before, which mentions it twice, is not first")
	}
}

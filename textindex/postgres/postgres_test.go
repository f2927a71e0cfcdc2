package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"

	"github.com/linksrus/linksrus/internal/pgtest"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/indextest"
	"github.com/linksrus/linksrus/textindex/postgres"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) {
	dsn := pgtest.Database(t, "textindex")
	ctx := context.Background()
	indextest.Run(t, func(t *testing.T) textindex.Indexer {
		idx, err := postgres.Open(ctx, dsn, postgres.Options{})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { idx.Close() })
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "TRUNCATE textindex_documents, textindex_anchors, textindex_links, textindex_hashes"); err != nil {
			t.Fatalf("empty the index: %v", err)
		}
		return idx
	})
}

// TestConcurrentOpen opens a fresh database from several goroutines at
// once: the migrations must be applied exactly once and every opener must
// succeed.
func TestConcurrentOpen(t *testing.T) {
	dsn := pgtest.Database(t, "textindex")
	ctx := context.Background()
	const openers = 6
	var wg sync.WaitGroup
	errs := make([]error, openers)
	for n := range openers {
		wg.Go(func() {
			idx, err := postgres.Open(ctx, dsn, postgres.Options{})
			if err == nil {
				err = idx.Close()
			}
			errs[n] = err
		})
	}
	wg.Wait()
	for n, err := range errs {
		if err != nil {
			t.Fatalf("opener %d: %v", n, err)
		}
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM textindex_schema_migrations").Scan(&n); err != nil {
		t.Fatalf("count migrations: %v", err)
	}
	files, err := filepath.Glob("migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("migration files: %v, %v", files, err)
	}
	if n != len(files) {
		t.Fatalf("%d migration rows, want one per migration (%d)", n, len(files))
	}
}

// TestUnstorableText checks that text PostgreSQL cannot store is cleaned
// rather than rejected.
func TestUnstorableText(t *testing.T) {
	idx, _ := openIndex(t)
	doc := &textindex.Document{LinkID: [16]byte{1}, Title: "nul\x00byte", Content: "bad \xff utf8"}
	if err := idx.Index(doc); err != nil {
		t.Fatalf("Index: %v", err)
	}
	got, err := idx.FindByID(doc.LinkID)
	if err != nil {
		t.Fatalf("FindByID: %v", err)
	}
	if got.Title != "nul\uFFFDbyte" || got.Content != "bad \uFFFD utf8" {
		t.Fatalf("got title %q content %q", got.Title, got.Content)
	}
}

// BenchmarkPostgres runs the shared benchmarks (indextest.Bench) on a
// fresh database, analysed when its anchor text is computed
// (UpdateAnchors), as after a crawl.
func BenchmarkPostgres(b *testing.B) {
	indextest.Bench(b, func(b *testing.B) textindex.Indexer {
		dsn := pgtest.Database(b, "textindex")
		idx, err := postgres.Open(context.Background(), dsn, postgres.Options{})
		if err != nil {
			b.Fatalf("Open: %v", err)
		}
		b.Cleanup(func() { idx.Close() })
		return idx
	})
}

// TestMigrateDuplicates opens an index written before duplicate content
// (migration 1 only): its documents stay searchable, and join a group once
// indexed again with a hash.
func TestMigrateDuplicates(t *testing.T) {
	old := uuid.New()
	idx := openOld(t, 1, fmt.Sprintf(`INSERT INTO textindex_documents (link_id, url, title, content, indexed_at, page_rank, indexed)
		VALUES ('%s', 'https://example.com/old', 'Old', 'legacy words', now(), 0.5, true)`, old))
	results := func() []*textindex.Document { return searchDocs(t, idx, "legacy") }
	if got := results(); len(got) != 1 || got[0].LinkID != old || got[0].ContentHash != "" {
		t.Fatalf("after migration: %+v", got)
	}
	hash := textindex.ContentHash("Old", "legacy words")
	err := idx.IndexBatch([]*textindex.Document{
		{LinkID: uuid.New(), URL: "https://example.com/old?x", Title: "Old", Content: "legacy words", IndexedAt: time.Now(), ContentHash: hash},
		{LinkID: old, URL: "https://example.com/old", Title: "Old", Content: "legacy words", IndexedAt: time.Now(), ContentHash: hash},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := results()
	if len(got) != 1 || got[0].LinkID != old || len(got[0].AlsoAt) != 1 || got[0].PageRank != 0.5 {
		t.Fatalf("re-indexed with a duplicate: %+v", got)
	}
}

// TestMigrateFields opens an index written before fields (migrations 1
// and 2): its rows get their URL path terms and a tsvector with the title
// and URL weighted, so a search weighs them at once, without the pages
// being indexed again.
func TestMigrateFields(t *testing.T) {
	titled, mentioned := uuid.New(), uuid.New()
	idx := openOld(t, 2, fmt.Sprintf(`INSERT INTO textindex_documents (link_id, url, title, content, indexed_at, indexed) VALUES
		('%s', 'https://example.com/docs/routine-maintenance.html?v=1', 'Vacuum', 'how to keep tables in shape', now(), true),
		('%s', 'https://example.com/docs/other.html', 'Other things', 'vacuum and vacuum again, among other things', now(), true)`,
		titled, mentioned))
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
	for _, w := range []string{"example", "v"} {
		if got := search(w); len(got) != 0 {
			t.Errorf("%q, of the URL's host or query, found %v", w, got)
		}
	}
}

// TestMigrateWordForms opens an index written before stemming (migrations
// 1 to 3): its rows get their stems, in English, so other forms of a word
// find its pages at once, the form asked for first.
func TestMigrateWordForms(t *testing.T) {
	asked, other := uuid.New(), uuid.New()
	idx := openOld(t, 3, fmt.Sprintf(`INSERT INTO textindex_documents (link_id, url, title, content, url_terms, indexed_at, indexed) VALUES
		('%s', 'https://example.com/a', 'Notes', 'the tables were vacuumed', 'a', now(), true),
		('%s', 'https://example.com/b', 'Notes', 'vacuuming tables weekly', 'b', now(), true)`,
		asked, other))
	var got []uuid.UUID
	for _, d := range searchDocs(t, idx, "vacuumed") {
		got = append(got, d.LinkID)
	}
	if !slices.Equal(got, []uuid.UUID{asked, other}) {
		t.Errorf("vacuumed after migration: %v, want %v then %v", got, asked, other)
	}
}

// TestMigrateAnchors opens an index written before anchor text
// (migrations 1 to 4): its documents stay found, have no links, and get
// the anchor text of pages indexed since that link to them.
func TestMigrateAnchors(t *testing.T) {
	old := uuid.New()
	idx := openOld(t, 4, fmt.Sprintf(`INSERT INTO textindex_documents (link_id, url, title, content, url_terms, indexed_at, indexed) VALUES
		('%s', 'https://example.com/psql', 'Psql', 'the terminal', 'psql', now(), true)`, old))
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

// TestMigrateVectors opens an index written while PostgreSQL found the
// terms (migrations 1 to 5): its documents' and anchor texts' vectors are
// made anew by the program's rules, so a path such as pg_hba.conf is the
// words pg, hba and conf, as in the other backends, and anchor text still
// counts.
func TestMigrateVectors(t *testing.T) {
	plain := uuid.MustParse("00000000-0000-4000-8000-000000000001")
	anchored := uuid.MustParse("ffffffff-0000-4000-8000-000000000001")
	idx := openOld(t, 5, fmt.Sprintf(`INSERT INTO textindex_documents (link_id, url, title, content, url_terms, indexed_at, indexed) VALUES
		('%s', 'https://example.com/a', 'Notes', 'edit pg_hba.conf', 'a', now(), true),
		('%s', 'https://example.com/b', 'Notes', 'edit pg_hba.conf', 'b', now(), true);
		INSERT INTO textindex_anchors (link_id, texts, tsv, stems) VALUES ('%[2]s', 'hba conf', '', '')`,
		plain, anchored))
	var got []uuid.UUID
	for _, d := range searchDocs(t, idx, "hba conf") {
		got = append(got, d.LinkID)
	}
	if !slices.Equal(got, []uuid.UUID{anchored, plain}) {
		t.Errorf("hba conf after migration: %v, want %v (its anchor text says so) then %v", got, anchored, plain)
	}
}

// TestMigrateHeadings opens an index written before headings (migrations
// 1 to 6, vectors written by the program): its documents keep their
// vectors, are found as before, without headings, and have the headings
// they are indexed with again.
func TestMigrateHeadings(t *testing.T) {
	old := uuid.New()
	idx := openOld(t, 6, fmt.Sprintf(`INSERT INTO textindex_documents (link_id, url, title, content, url_terms, indexed_at, indexed, tsv) VALUES
		('%s', 'https://example.com/lynx', 'Notes', 'Lynx habitats of the north', 'lynx', now(), true,
			setweight(to_tsvector('simple', 'Notes'), 'A') || setweight(to_tsvector('simple', 'lynx'), 'B') ||
			setweight(to_tsvector('simple', 'Lynx habitats of the north'), 'D'))`, old))
	if got := searchDocs(t, idx, "habitats"); len(got) != 1 || got[0].LinkID != old || got[0].Headings != "" {
		t.Fatalf("habitats after migration: %+v", got)
	}
	if d, err := idx.FindByID(old); err != nil || d.Headings != "" || d.Content != "Lynx habitats of the north" {
		t.Fatalf("document of before: %+v, %v", d, err)
	}
	doc := &textindex.Document{LinkID: old, URL: "https://example.com/lynx", Title: "Notes",
		Content: "Lynx habitats\nof the north", Headings: "Lynx habitats", IndexedAt: time.Now()}
	if err := idx.Index(doc); err != nil {
		t.Fatal(err)
	}
	if got := searchDocs(t, idx, "habitats"); len(got) != 1 || got[0].Headings != doc.Headings {
		t.Errorf("habitats once indexed again: %+v", got)
	}
}

// TestMigrateSharedHashes opens an index written before its hashes were
// recorded (migrations 1 to 7): the hashes its documents share are known
// at once, so that of a group only the first is found, and a hash of one
// document becomes shared when another is indexed with it.
func TestMigrateSharedHashes(t *testing.T) {
	first, copied, alone, later := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	row := func(id uuid.UUID, url, hash string) string {
		return fmt.Sprintf(`('%s', '%s', 'Otters', 'otters of the river', 'otters', now(), true, '%s',
			setweight(to_tsvector('simple', 'otters of the river'), 'D'))`, id, url, hash)
	}
	idx := openOld(t, 7, `INSERT INTO textindex_documents (link_id, url, title, content, url_terms, indexed_at, indexed, content_hash, tsv) VALUES `+
		row(first, "https://example.com/otters", "h1")+", "+row(copied, "https://example.com/otters?copy", "h1")+", "+
		row(alone, "https://example.com/river", "h2"))
	sorted := func(ids ...uuid.UUID) []uuid.UUID {
		slices.SortFunc(ids, linkgraph.CompareIDs)
		return ids
	}
	found := func() []uuid.UUID {
		var ids []uuid.UUID
		for _, d := range searchDocs(t, idx, "otters") {
			ids = append(ids, d.LinkID)
		}
		return sorted(ids...)
	}
	if got, want := found(), sorted(first, alone); !slices.Equal(got, want) {
		t.Fatalf("after migration: %v, want %v (not the copy %v)", got, want, copied)
	}
	err := idx.Index(&textindex.Document{LinkID: later, URL: "https://example.com/river/again", Title: "Otters",
		Content: "otters of the river", IndexedAt: time.Now(), ContentHash: "h2"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := found(), sorted(first, alone); !slices.Equal(got, want) {
		t.Errorf("with a second page of the hash of one: %v, want %v (not %v)", got, want, later)
	}
}

// TestConcurrentDuplicates indexes the two pages of each of many groups
// at once, from two writers: whichever commits second must see the
// other's page, so that only the first of each group is found.
func TestConcurrentDuplicates(t *testing.T) {
	idx, _ := openIndex(t)
	const groups = 60
	page := func(g, n int) *textindex.Document {
		id := uuid.NewSHA1(uuid.NameSpaceURL, []byte(fmt.Sprintf("%d/%d", g, n)))
		return &textindex.Document{LinkID: id, URL: fmt.Sprintf("https://example.com/%d/%d", g, n), Title: "twins",
			Content: fmt.Sprintf("twin pages of group g%d", g), IndexedAt: time.Now(), ContentHash: fmt.Sprintf("hash-%d", g)}
	}
	for g := range groups {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for n := range 2 {
			wg.Go(func() { errs[n] = idx.Index(page(g, n)) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
	}
	it, err := idx.Search(textindex.Query{Expression: "twin"})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if n := it.TotalCount(); n != groups {
		t.Errorf("%d pages found for %d groups of two", n, groups)
	}
	for it.Next() {
		if d := it.Document(); len(d.AlsoAt) != 1 || !strings.HasSuffix(d.URL, "/0") {
			t.Errorf("%s found, also at %v: want the first of its group, with the other", d.URL, d.AlsoAt)
		}
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
}

// TestFailedBatchRecordsNoHash fails a batch's write of its pages (a
// trigger refuses one) after its hashes were written in the same
// transaction: no hash of it stays recorded, and the batch written again
// once the fault is gone leaves the page's duplicate out as it should.
func TestFailedBatchRecordsNoHash(t *testing.T) {
	ctx := context.Background()
	idx, dsn := openIndex(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `
		CREATE FUNCTION refuse_page() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'refused for the test'; END $$;
		CREATE TRIGGER refuse_page BEFORE INSERT ON textindex_documents
		FOR EACH ROW WHEN (NEW.url LIKE '%/refused') EXECUTE FUNCTION refuse_page()`)
	if err != nil {
		t.Fatal(err)
	}
	doc := func(url, hash string) *textindex.Document {
		return &textindex.Document{LinkID: uuid.NewSHA1(uuid.NameSpaceURL, []byte(url)), URL: url, Title: "kestrels",
			Content: "kestrels hovering", IndexedAt: time.Now(), ContentHash: hash}
	}
	batch := []*textindex.Document{doc("https://example.com/a", "hash-a"), doc("https://example.com/b/refused", "hash-b")}
	if err := idx.IndexBatch(batch); err == nil {
		t.Fatal("IndexBatch succeeded past the trigger")
	}
	var hashes int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM textindex_hashes`).Scan(&hashes); err != nil {
		t.Fatal(err)
	}
	if hashes != 0 {
		t.Errorf("%d hashes recorded by a batch whose pages were not written", hashes)
	}
	if _, err := conn.Exec(ctx, `DROP TRIGGER refuse_page ON textindex_documents`); err != nil {
		t.Fatal(err)
	}
	if err := idx.IndexBatch(batch); err != nil {
		t.Fatal(err)
	}
	if err := idx.Index(doc("https://example.com/c", "hash-a")); err != nil {
		t.Fatal(err)
	}
	if got := searchDocs(t, idx, "kestrels"); len(got) != 2 || got[0].URL == "https://example.com/c" || got[1].URL == "https://example.com/c" {
		t.Errorf("after the batch written again and a duplicate of its first page: %v", got)
	}
}

// openIndex opens an index in a new database, closed when the test ends,
// and returns it with the database's URL.
func openIndex(t *testing.T) (*postgres.Index, string) {
	t.Helper()
	dsn := pgtest.Database(t, "textindex")
	idx, err := postgres.Open(t.Context(), dsn, postgres.Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { idx.Close() })
	return idx, dsn
}

// openOld writes, in a database of its own, an index with only its first
// version migrations applied, runs stmts on it, and opens it as a program
// of today does, migrating it.
func openOld(t *testing.T, version int, stmts ...string) *postgres.Index {
	t.Helper()
	dsn := pgtest.Database(t, "textindex")
	ctx := context.Background()
	files, err := filepath.Glob("migrations/*.sql")
	if err != nil || len(files) < version {
		t.Fatalf("migration files: %v, %v", files, err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	var setup []string
	for _, f := range files[:version] { // Glob sorts: 0001_, 0002_, ...
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		setup = append(setup, string(b))
	}
	setup = append(setup, fmt.Sprintf(`CREATE TABLE textindex_schema_migrations (version INT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());
		INSERT INTO textindex_schema_migrations (version) SELECT generate_series(1, %d)`, version))
	for _, q := range append(setup, stmts...) {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	idx, err := postgres.Open(ctx, dsn, postgres.Options{})
	if err != nil {
		t.Fatalf("Open migrates: %v", err)
	}
	t.Cleanup(func() { idx.Close() })
	return idx
}

// searchDocs returns the results of a match query for expr, in order.
func searchDocs(t *testing.T, idx *postgres.Index, expr string) []*textindex.Document {
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

// TestLoad indexes LINKSRUS_LOAD_DOCS generated documents into a fresh
// database (indextest.Load) and logs the insert rate, the database's size
// and search latencies. It is too slow for CI and runs only when asked:
//
//	LINKSRUS_LOAD_DOCS=1000000 LINKSRUS_TEST_PG=... go test -run TestLoad -v -timeout 3h ./textindex/postgres/
func TestLoad(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("LINKSRUS_LOAD_DOCS"))
	if n <= 0 {
		t.Skip("load test skipped: set LINKSRUS_LOAD_DOCS (e.g. 1000000) to run it")
	}
	idx, dsn := openIndex(t)
	res, err := indextest.Load(t.Context(), idx, n, 200, 20)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var size, docs, anchors int64
	err = conn.QueryRow(t.Context(), `SELECT pg_database_size(current_database()),
		pg_total_relation_size('textindex_documents') + pg_total_relation_size('textindex_links'),
		pg_total_relation_size('textindex_anchors')`).Scan(&size, &docs, &anchors)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("postgres: %v; database %d MiB (%.0f bytes/document; documents and links %d MiB, anchor text %d MiB)",
		res, size>>20, float64(size)/float64(n), docs>>20, anchors>>20)
}

// TestVectorsInTheRow checks the storage of the vectors, which a search
// reads for every hit: kept in their row (MAIN), as the text, read for a
// returned page only, is not. Out of line, each hit took lookups in the
// TOAST table: a search for a word in every one of 100,000 documents was
// 4.5 times as slow.
func TestVectorsInTheRow(t *testing.T) {
	dsn := pgtest.Database(t, "textindex")
	idx, err := postgres.Open(t.Context(), dsn, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	idx.Close()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	rows, err := conn.Query(t.Context(), `SELECT attrelid::regclass::text || '.' || attname, attstorage FROM pg_attribute
		WHERE attrelid IN ('textindex_documents'::regclass, 'textindex_anchors'::regclass)
		AND attname IN ('tsv', 'stems', 'content') ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var col, storage string
		err := r.Scan(&col, &storage)
		return col + ":" + storage, err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"textindex_anchors.stems:m", "textindex_anchors.tsv:m",
		"textindex_documents.content:x", "textindex_documents.stems:m", "textindex_documents.tsv:m"}
	if !slices.Equal(got, want) {
		t.Errorf("storage %q, want %q", got, want)
	}
}

// TestUpdateAnchorsTidies checks that UpdateAnchors leaves nothing in
// the pending lists of the GIN indexes searches read (the documents' from
// the writes before it, the anchor texts' from its own), which every
// search would otherwise read whole until autovacuum merged them, that
// it vacuums the anchor texts it replaced (autovacuum may be off, as it
// is on some test servers, and dead rows pile up update after update),
// and that it analyses the documents, whose words a planner without
// statistics misjudges by orders of magnitude.
func TestUpdateAnchorsTidies(t *testing.T) {
	ctx := context.Background()
	idx, dsn := openIndex(t)
	if err := idx.IndexBatch(chainOfPages(300)); err != nil {
		t.Fatalf("IndexBatch: %v", err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	const updates = 3
	for range updates {
		if err := idx.UpdateAnchors(ctx); err != nil {
			t.Fatalf("UpdateAnchors: %v", err)
		}
	}
	// Counts VACUUM and ANALYZE commands only, not autovacuum's.
	var vacuums, analyses int64
	err = conn.QueryRow(ctx, `SELECT
		(SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'textindex_anchors'),
		(SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'textindex_documents')`).Scan(&vacuums, &analyses)
	if err != nil {
		t.Fatal(err)
	}
	if vacuums != updates {
		t.Errorf("the anchor texts were vacuumed %d times in %d updates", vacuums, updates)
	}
	if analyses != updates {
		t.Errorf("the documents were analysed %d times in %d updates", analyses, updates)
	}
	for _, name := range []string{"textindex_documents_tsv_idx", "textindex_documents_stems_idx", "textindex_anchors_tsv_idx", "textindex_anchors_stems_idx"} {
		var pages int64
		if err := conn.QueryRow(ctx, `SELECT gin_clean_pending_list($1::regclass)`, name).Scan(&pages); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if pages != 0 {
			t.Errorf("%s: %d pages still pending after UpdateAnchors", name, pages)
		}
	}
	got := searchDocs(t, idx, "page 7")
	if len(got) == 0 || !slices.Equal(got[0].Anchors, []string{"the next page of this site, 7"}) {
		t.Errorf("page 7 is not found first with its anchor text: %v", got)
	}
}

// chainOfPages returns n pages, each linking to the next, the last to the
// first, with anchor text that names the page it leads to: page k is
// "the next page of this site, k" (k from 1; page 0's is "…, n").
func chainOfPages(n int) []*textindex.Document {
	var docs []*textindex.Document
	for k := range n {
		docs = append(docs, &textindex.Document{
			LinkID: uuid.New(), URL: fmt.Sprintf("https://example.com/%d", k), Title: fmt.Sprintf("page %d", k),
			Content: "words of a page", IndexedAt: time.Now(),
			Links: []textindex.Link{{URL: fmt.Sprintf("https://example.com/%d", (k+1)%n), Text: fmt.Sprintf("the next page of this site, %d", k+1)}},
		})
	}
	return docs
}

// TestUpdateAnchorsWithoutOwningTheTables checks that a role that may
// write the index but owns none of its tables updates the anchor text all
// the same: the tidy-up after it (VACUUM, gin_clean_pending_list), which
// needs the owner, is left to autovacuum without an error.
func TestUpdateAnchorsWithoutOwningTheTables(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Database(t, "textindex")
	owner, err := postgres.Open(ctx, dsn, postgres.Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	owner.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	role := fmt.Sprintf("linksrus_writer_%d", time.Now().UnixNano())
	for _, stmt := range []string{
		`CREATE ROLE ` + role + ` LOGIN PASSWORD 'writer'`,
		// CREATE: Open creates its migrations table if it is missing.
		`GRANT USAGE, CREATE ON SCHEMA public TO ` + role,
		`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ` + role,
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	t.Cleanup(func() {
		// The role's grants are in this database; the role is the
		// cluster's.
		if _, err := conn.Exec(ctx, `DROP OWNED BY `+role); err != nil {
			t.Errorf("drop the role's grants: %v", err)
		}
		if _, err := conn.Exec(ctx, `DROP ROLE `+role); err != nil {
			t.Errorf("drop role: %v", err)
		}
	})
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	writerDSN := fmt.Sprintf("postgres://%s:writer@%s:%d/%s?sslmode=disable", role, cfg.Host, cfg.Port, cfg.Database)
	idx, err := postgres.Open(ctx, writerDSN, postgres.Options{})
	if err != nil {
		t.Fatalf("Open as %s: %v", role, err)
	}
	defer idx.Close()
	if err := idx.IndexBatch(chainOfPages(50)); err != nil {
		t.Fatalf("IndexBatch: %v", err)
	}
	if err := idx.UpdateAnchors(ctx); err != nil {
		t.Fatalf("UpdateAnchors by a role that owns no table: %v", err)
	}
	var vacuums int64
	if err := conn.QueryRow(ctx, `SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'textindex_anchors'`).Scan(&vacuums); err != nil {
		t.Fatal(err)
	}
	if vacuums != 0 {
		t.Errorf("the anchor texts were vacuumed by a role that does not own them (%d times)", vacuums)
	}
	got := searchDocs(t, idx, "page 7")
	if len(got) == 0 || !slices.Equal(got[0].Anchors, []string{"the next page of this site, 7"}) {
		t.Errorf("page 7 is not found first with its anchor text: %v", got)
	}
}

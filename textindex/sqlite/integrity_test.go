package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

// writeTestIndex creates an index of n pages of varied text at path and
// closes it, returning the pages' IDs.
func writeTestIndex(t *testing.T, path string, n int) []uuid.UUID {
	t.Helper()
	idx, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	ids := make([]uuid.UUID, n)
	docs := make([]*textindex.Document, n)
	for i := range docs {
		var b strings.Builder
		for range 600 {
			fmt.Fprintf(&b, "w%d ", r.IntN(20000))
		}
		ids[i] = uuid.New()
		docs[i] = &textindex.Document{LinkID: ids[i], URL: fmt.Sprintf("http://example.com/p%d", i), Title: fmt.Sprintf("page %d", i), Content: b.String()}
	}
	if err := idx.IndexBatch(docs); err != nil {
		t.Fatalf("IndexBatch: %v", err)
	}
	if err := idx.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return ids
}

// searchToTheEnd runs a match query for words on idx and reads all its
// results, returning the first error.
func searchToTheEnd(idx *Index, words string) error {
	it, err := idx.Search(textindex.Query{Type: textindex.QueryTypeMatch, Expression: words})
	if err != nil {
		return err
	}
	defer it.Close()
	for it.Next() {
	}
	return it.Error()
}

// overwrite writes size bytes of seeded noise at off in the file at path.
func overwrite(t *testing.T, path string, off int64, size int, seed uint64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	noise := make([]byte, size)
	r := rand.New(rand.NewPCG(seed, seed))
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	if _, err := f.WriteAt(noise, off); err != nil {
		t.Fatal(err)
	}
}

// An index file with 64 KiB of garbage in its middle (the damage a user
// reported: the crawl went on into it and exited 0) is refused when it is
// opened, for writing and for reading, with textindex.ErrCorrupt naming
// the file, and opening it writes nothing.
func TestOpenRefusesDamagedFile(t *testing.T) {
	dir := t.TempDir()
	pristine := filepath.Join(dir, "pristine.db")
	writeTestIndex(t, pristine, 400)
	// FTS5's merges leave free pages, whose bytes no one reads: damage
	// there harms nothing. Vacuumed, the file holds live pages only.
	db, err := sql.Open("sqlite", pristine)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`VACUUM`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	clean, err := os.ReadFile(pristine)
	if err != nil {
		t.Fatal(err)
	}
	if len(clean) < 1<<20 {
		t.Fatalf("test index of %d bytes, want over 1 MiB so that the damage lies inside it", len(clean))
	}
	for seed := range uint64(8) {
		path := filepath.Join(dir, fmt.Sprintf("damaged%d.db", seed))
		if err := os.WriteFile(path, clean, 0o600); err != nil {
			t.Fatal(err)
		}
		// Anywhere in the middle half of the file.
		off := int64(len(clean)/4) + int64(seed)*int64(len(clean)/16)
		overwrite(t, path, off, 64<<10, seed)
		damaged, _ := os.ReadFile(path)

		for name, opts := range map[string]Options{"Open": {}, "Open read-only": {ReadOnly: true}} {
			idx, err := Open(context.Background(), path, opts)
			if err == nil {
				idx.Close()
				t.Fatalf("seed %d: %s of a damaged index succeeded", seed, name)
			}
			if !errors.Is(err, textindex.ErrCorrupt) || !strings.Contains(err.Error(), path) {
				t.Fatalf("seed %d: %s: %v, want ErrCorrupt naming %s", seed, name, err, path)
			}
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, damaged) {
			t.Fatalf("seed %d: opening the damaged index changed the file", seed)
		}
		for _, side := range []string{"-wal", "-shm"} {
			if fi, err := os.Stat(path + side); err == nil && fi.Size() > 0 && side == "-wal" {
				t.Errorf("seed %d: opening the damaged index left a write-ahead log of %d bytes", seed, fi.Size())
			}
		}
	}

	// A file that is not a database at all (its header overwritten).
	path := filepath.Join(dir, "header.db")
	if err := os.WriteFile(path, clean, 0o600); err != nil {
		t.Fatal(err)
	}
	overwrite(t, path, 0, 100, 99)
	if idx, err := Open(context.Background(), path, Options{}); !errors.Is(err, textindex.ErrCorrupt) {
		if err == nil {
			idx.Close()
		}
		t.Fatalf("Open of a file with a garbage header: %v, want ErrCorrupt", err)
	}
}

// The check at open covers every table and index of the file, the
// full-text index's own tables among them, though each is checked on its
// own: garbage on the first page of any of them is refused at open.
func TestOpenChecksEveryTable(t *testing.T) {
	dir := t.TempDir()
	pristine := filepath.Join(dir, "pristine.db")
	writeTestIndex(t, pristine, 50)
	db, err := sql.Open("sqlite", pristine)
	if err != nil {
		t.Fatal(err)
	}
	roots := make(map[string]int64)
	rows, err := db.Query(`SELECT name, rootpage FROM sqlite_schema WHERE rootpage > 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var (
			name string
			root int64
		)
		if err := rows.Scan(&name, &root); err != nil {
			t.Fatal(err)
		}
		roots[name] = root
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var pageSize int64
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, name := range []string{"docs", "bodies", "doc_links", "docs_fts_data", "docs_fts_docsize", "anchors_fts_data"} {
		if roots[name] == 0 {
			t.Fatalf("no table %s in %v", name, roots)
		}
	}
	clean, err := os.ReadFile(pristine)
	if err != nil {
		t.Fatal(err)
	}
	for name, root := range roots {
		path := filepath.Join(dir, name+".db")
		if err := os.WriteFile(path, clean, 0o600); err != nil {
			t.Fatal(err)
		}
		overwrite(t, path, (root-1)*pageSize, int(pageSize), uint64(root))
		idx, err := Open(context.Background(), path, Options{ReadOnly: true})
		if err == nil {
			idx.Close()
			t.Errorf("%s damaged: Open succeeded", name)
		} else if !errors.Is(err, textindex.ErrCorrupt) {
			t.Errorf("%s damaged: Open: %v, want ErrCorrupt", name, err)
		}
	}
}

// Records of the full-text index that no longer decode, in pages whose
// structure is whole (the check at open leaves FTS5's own check out), fail
// the search that reads them with textindex.ErrCorrupt, never "no
// results".
func TestUndecodableFullTextIsErrCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	writeTestIndex(t, path, 50)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// Every block of the index's segments (id > 10: the averages and the
	// structure record come first) garbled through SQL, so that the
	// pages stay well formed.
	var blocks []int64
	rows, err := db.Query(`SELECT id FROM docs_fts_data WHERE id > 10 ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, id)
	}
	if err := rows.Err(); err != nil || len(blocks) == 0 {
		t.Fatalf("segment blocks: %d, %v", len(blocks), err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	for _, id := range blocks {
		var size int
		if err := db.QueryRow(`SELECT length(block) FROM docs_fts_data WHERE id = ?`, id).Scan(&size); err != nil {
			t.Fatal(err)
		}
		noise := make([]byte, size)
		for i := range noise {
			noise[i] = byte(r.Uint32())
		}
		if _, err := db.Exec(`UPDATE docs_fts_data SET block = ? WHERE id = ?`, noise, id); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	idx, err := Open(context.Background(), path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("Open: %v (the pages' structure is whole)", err)
	}
	defer idx.Close()
	if err := searchToTheEnd(idx, "page"); !errors.Is(err, textindex.ErrCorrupt) {
		t.Errorf("Search of a garbled full-text index: %v, want ErrCorrupt", err)
	}
}

// An index too large for the full check at open is checked where every
// operation starts (the schema and the docs table); damage elsewhere
// fails the statement that reads it with textindex.ErrCorrupt, on reads
// and writes alike, and never reads as "no results".
func TestDamageBeyondTheOpenCheckIsErrCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	ids := writeTestIndex(t, path, 200)

	// The root page of the table of stored texts.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	var root, pageSize int64
	if err := db.QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name = 'bodies'`).Scan(&root); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	db.Close()
	overwrite(t, path, (root-1)*pageSize, int(pageSize), 7)

	full := fullCheckMaxBytes
	fullCheckMaxBytes = 0 // as if the file were large
	t.Cleanup(func() { fullCheckMaxBytes = full })

	idx, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatalf("Open with the docs table intact: %v", err)
	}
	defer idx.Close()
	if _, err := idx.FindByID(ids[0]); !errors.Is(err, textindex.ErrCorrupt) {
		t.Errorf("FindByID on a damaged table: %v, want ErrCorrupt", err)
	}
	if err := searchToTheEnd(idx, "page"); !errors.Is(err, textindex.ErrCorrupt) {
		t.Errorf("Search on a damaged table: %v, want ErrCorrupt", err)
	}
	doc := &textindex.Document{LinkID: ids[1], URL: "http://example.com/p1", Title: "page 1", Content: "new text"}
	if err := idx.Index(doc); !errors.Is(err, textindex.ErrCorrupt) {
		t.Errorf("Index into a damaged table: %v, want ErrCorrupt", err)
	}

	// The same file is refused at open by the full check.
	fullCheckMaxBytes = full
	if idx2, err := Open(context.Background(), path, Options{}); !errors.Is(err, textindex.ErrCorrupt) {
		if err == nil {
			idx2.Close()
		}
		t.Errorf("Open with the full check: %v, want ErrCorrupt", err)
	}
}

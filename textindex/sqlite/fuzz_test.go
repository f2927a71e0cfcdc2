package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/sqlite"
)

// FuzzSearch checks that no expression, whatever FTS5 syntax it holds, makes
// a search fail or return more than TotalCount promises.
func FuzzSearch(f *testing.F) {
	for _, s := range []string{`a OR b`, `"x`, `NEAR(a b, 2)`, `body:a`, `a*`, `^a`, `(a`, `- a`, `a + b`, "\x00", "東京", `""`,
		`a -b site:x.org`, `"a b" -"c d" site:`, `-a`, `site:%_'--`, `a NOT b`} {
		f.Add(s, false)
		f.Add(s, true)
	}
	idx, err := sqlite.Open(context.Background(), filepath.Join(f.TempDir(), "index.db"), sqlite.Options{})
	if err != nil {
		f.Fatalf("Open: %v", err)
	}
	f.Cleanup(func() { idx.Close() })
	for _, text := range []string{"a b c", "near body x", "東京 タワー", "or and not"} {
		if err := idx.Index(&textindex.Document{LinkID: uuid.New(), URL: "https://x.org/" + text, Title: text, Content: text}); err != nil {
			f.Fatalf("Index: %v", err)
		}
	}
	f.Fuzz(func(t *testing.T, expr string, phrase bool) {
		// phrase picks the phrase type, or else the search-box syntax;
		// the plain match type runs too.
		q := textindex.Query{Type: textindex.QueryTypeSearch, Expression: expr}
		if phrase {
			q.Type = textindex.QueryTypePhrase
		}
		if it, err := idx.Search(textindex.Query{Type: textindex.QueryTypeMatch, Expression: expr}); err != nil {
			t.Fatalf("Search(match %q): %v", expr, err)
		} else {
			for it.Next() {
			}
			if err := it.Error(); err != nil {
				t.Fatalf("Search(match %q): %v", expr, err)
			}
			it.Close()
		}
		it, err := idx.Search(q)
		if err != nil {
			t.Fatalf("Search(%q): %v", expr, err)
		}
		defer it.Close()
		var n uint64
		for it.Next() {
			n++
		}
		if err := it.Error(); err != nil {
			t.Fatalf("Search(%q): %v", expr, err)
		}
		if n != it.TotalCount() {
			t.Fatalf("Search(%q): %d results, TotalCount %d", expr, n, it.TotalCount())
		}
	})
}

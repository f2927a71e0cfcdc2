package relevance_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/linksrus/linksrus/searchweb/relevance"
)

func TestParse(t *testing.T) {
	in := "vacuum\tsql-vacuum.html routine-vacuuming.html\r\n" +
		"\n   \n" +
		"  write ahead log \t wal-intro.html\t wal.html  \n" +
		"pg_hba.conf\tauth-pg-hba-conf.html" // no newline at the end
	got, err := relevance.Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []relevance.Judgment{
		{Query: "vacuum", Pages: []string{"sql-vacuum.html", "routine-vacuuming.html"}, Line: 1},
		{Query: "write ahead log", Pages: []string{"wal-intro.html", "wal.html"}, Line: 4},
		{Query: "pg_hba.conf", Pages: []string{"auth-pg-hba-conf.html"}, Line: 5},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Parse =\n%+v\nwant\n%+v", got, want)
	}
}

// Each mistake is an error naming its line and what is wrong, never a
// judgment that measures something else.
func TestParseRejectsMalformedLines(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"empty file", "", "no judged query"},
		{"blank lines only", "\n \r\n\t\n", "no judged query"},
		{"no tab", "vacuum sql-vacuum.html\n", "line 1: no tab"},
		{"empty query", "ok\tok.html\n \tsql-vacuum.html\n", "line 2: the query before the tab is empty"},
		{"no page", "vacuum\t  \n", "line 1: no page after the tab answers \"vacuum\""},
		{"repeated query", "Vacuum\ta.html\nx\tx.html\n vacuum \tb.html\n", "line 3: the query \"vacuum\" is judged on line 1 already"},
		{"repeated page", "vacuum\ta.html b.html a.html\n", "line 1: the page \"a.html\" is listed twice"},
		{"not UTF-8", "vac\xffuum\ta.html\n", "line 1: not UTF-8"},
		{"control character", "vac\x00uum\ta.html\n", "line 1: a control character (U+0000)"},
		{"too long", "q\t" + strings.Repeat("a", 70<<10) + "\n", "line 1: longer than 64 KB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := relevance.Parse(strings.NewReader(c.in))
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error", c.in, got)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("Parse: %v, want it to say %q", err, c.want)
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.tsv")
	if err := os.WriteFile(bad, []byte("ok\ta.html\nbroken line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := relevance.ReadFile(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": line 2: no tab") {
		t.Errorf("ReadFile(bad) = %v, want it to start with the path and the line", err)
	}
	if _, err := relevance.ReadFile(filepath.Join(dir, "missing.tsv")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v, want a not-exist error", err)
	}
}

// The judged sets in the repository parse, and name pages as paths under
// the corpus root.
func TestRepositoryJudgedSets(t *testing.T) {
	for _, name := range []string{"pg-judged.tsv", "rust-judged.tsv"} {
		set, err := relevance.ReadFile(filepath.Join("..", "..", "testdata", "relevance", name))
		if err != nil {
			t.Fatal(err)
		}
		if len(set) < 20 {
			t.Errorf("%s: %d judged queries, want at least 20", name, len(set))
		}
		for _, j := range set {
			for _, p := range j.Pages {
				if strings.HasPrefix(p, "/") || strings.Contains(p, "://") || !strings.HasSuffix(p, ".html") {
					t.Errorf("%s line %d: page %q is not an .html path relative to the corpus root", name, j.Line, p)
				}
			}
		}
	}
}

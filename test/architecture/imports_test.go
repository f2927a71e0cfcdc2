package architecture

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/linksrus/linksrus/"

// imports returns, for every package directory of the module, the
// packages of ours its non-test files import, and separately those it
// imports only for their side effects (import _).
func imports(t *testing.T) (named, blank map[string][]string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	named, blank = map[string][]string{}, map[string][]string{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		for _, is := range f.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			if !strings.HasPrefix(p, module) {
				continue
			}
			p = strings.TrimPrefix(p, module)
			if is.Name != nil && is.Name.Name == "_" {
				blank[pkg] = append(blank[pkg], p)
			} else {
				named[pkg] = append(named[pkg], p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return named, blank
}

// under reports whether pkg is dir or inside it.
func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// backends are the store implementations, reached through Open and the
// registry of URL schemes, never by their types from outside.
var backends = []string{
	"linkgraph/memory", "linkgraph/bolt", "linkgraph/postgres",
	"textindex/memory", "textindex/sqlite", "textindex/postgres",
}

func TestImportsPointOneWay(t *testing.T) {
	named, blank := imports(t)
	if len(named["crawler/engine"]) == 0 {
		t.Fatal("no imports found for crawler/engine: is the walk looking at the module?")
	}
	rules := []struct {
		name  string
		from  func(pkg string) bool
		allow func(imp string) bool
	}{
		{"pipeline is a product of its own: it imports only internal/ctxtime",
			func(p string) bool { return under(p, "pipeline") },
			func(i string) bool { return under(i, "pipeline") || i == "internal/ctxtime" }},
		{"archive/warc stands alone: the crawler adapts to it",
			func(p string) bool { return under(p, "archive") },
			func(i string) bool { return under(i, "archive") }},
		{"the stores know nothing of crawling but the shared queue's contract, which the PostgreSQL graph keeps",
			func(p string) bool { return under(p, "linkgraph") || under(p, "textindex") || under(p, "pagerank") },
			func(i string) bool {
				return !under(i, "crawler") && !under(i, "cmd") && !under(i, "searchweb") ||
					i == "crawler/workqueue" || i == "crawler/robots" // workqueue.Robots's Basis
			}},
		{"only the PostgreSQL graph keeps a shared queue",
			func(p string) bool {
				return (under(p, "linkgraph") || under(p, "textindex") || under(p, "pagerank")) && p != "linkgraph/postgres"
			},
			func(i string) bool { return !under(i, "crawler") }},
		{"the crawler and its building blocks do not know the engine or the command",
			func(p string) bool { return under(p, "crawler") && !under(p, "crawler/engine") },
			func(i string) bool { return !under(i, "crawler/engine") && !under(i, "cmd") }},
		{"the crawler reaches stores through the interfaces it declares, never a backend",
			func(p string) bool { return under(p, "crawler") },
			func(i string) bool { return !slices.Contains(backends, i) }},
		{"no backend imports another",
			func(p string) bool { return slices.Contains(backends, p) },
			func(i string) bool { return !slices.Contains(backends, i) }},
		{"the command reaches backends through Open, and building blocks through the engine",
			func(p string) bool { return under(p, "cmd") },
			func(i string) bool {
				return !slices.Contains(backends, i) && !slices.Contains([]string{
					"crawler/politeness", "crawler/robots", "crawler/scope", "crawler/urlnorm", "crawler/sitemap",
				}, i)
			}},
	}
	for _, r := range rules {
		for pkg, imps := range named {
			if !r.from(pkg) {
				continue
			}
			for _, imp := range imps {
				if !r.allow(imp) {
					t.Errorf("%s imports %s: %s", pkg, imp, r.name)
				}
			}
		}
	}
	// Blank imports register a backend's URL scheme, as database/sql
	// drivers do: only the command and tests may choose backends so.
	for pkg, imps := range blank {
		for _, imp := range imps {
			if !slices.Contains(backends, imp) || !under(pkg, "cmd") {
				t.Errorf("%s imports _ %s: only the command registers backends by a blank import", pkg, imp)
			}
		}
	}
}

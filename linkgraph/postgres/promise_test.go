package postgres

import (
	"os"
	"strings"
	"testing"
)

// The database promise: PostgreSQL is the shared backend the project tests
// and promises, and CockroachDB is named only as untested, in README and in
// the docs of both PostgreSQL backends.
func TestDocsPromisePostgreSQLOnly(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "PostgreSQL is the shared backend this project tests and promises") {
		t.Error("README does not state the database promise")
	}
	for _, path := range []string{
		"../../README.md", "../README.md", "../../textindex/README.md",
		"postgres.go", "../../textindex/postgres/postgres.go",
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// A paragraph is text between blank lines (blank comment lines in
		// Go sources).
		text := strings.ReplaceAll(string(b), "\n//\n", "\n\n")
		for _, para := range strings.Split(text, "\n\n") {
			if strings.Contains(para, "CockroachDB") && !strings.Contains(para, "untested") {
				t.Errorf("%s names CockroachDB without calling it untested:\n%s", path, para)
			}
		}
	}
}

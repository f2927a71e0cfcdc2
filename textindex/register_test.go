package textindex_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/memory"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		url      string
		sentinel error
		contains string
	}{
		{"nosuch://x", textindex.ErrUnknownScheme, `"nosuch"`},
		// A backend this module ships, not imported: the error names the
		// import.
		{"sqlite:///tmp/index.db", textindex.ErrUnknownScheme, `import _ "github.com/linksrus/linksrus/textindex/sqlite"`},
		{"postgresql://host/db", textindex.ErrUnknownScheme, `import _ "github.com/linksrus/linksrus/textindex/postgres"`},
		{"/just/a/path", textindex.ErrUnknownScheme, "memory"},
		{"", textindex.ErrUnknownScheme, "memory"},
		{"memory://host", nil, "want plain memory://"},
		{"memory://?x=1", nil, "want plain memory://"},
		{"postgres://user:secret@host:5432/db\x7f", nil, "malformed URL"},
		{"%zz", nil, "malformed URL"},
	} {
		idx, err := textindex.Open(ctx, tc.url)
		if err == nil {
			idx.Close()
			t.Fatalf("Open(%q) succeeded, want an error", tc.url)
		}
		if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
			t.Errorf("Open(%q) = %v, want %v", tc.url, err, tc.sentinel)
		}
		if !strings.Contains(err.Error(), tc.contains) {
			t.Errorf("Open(%q) = %q, want it to mention %q", tc.url, err, tc.contains)
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%q) error leaks the password: %v", tc.url, err)
		}
	}
}

func TestOpenIsCaseInsensitive(t *testing.T) {
	idx, err := textindex.Open(context.Background(), "MEMORY://")
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if _, ok := idx.(*memory.Index); !ok {
		t.Fatalf("Open returned %T, want *memory.Index", idx)
	}
	idx.Close()
}

func TestRegisterMisuse(t *testing.T) {
	open := func(context.Context, *url.URL) (textindex.Indexer, error) { return memory.New(), nil }
	for name, fn := range map[string]func(){
		"duplicate": func() { textindex.Register("memory", open) },
		"empty":     func() { textindex.Register("", open) },
		"nil":       func() { textindex.Register("x-nil", nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register %s did not panic", name)
				}
			}()
			fn()
		}()
	}
}

func TestSchemesAndQueryTypeString(t *testing.T) {
	if s := textindex.Schemes(); len(s) == 0 || s[0] != "memory" {
		t.Errorf("Schemes() = %v, want [memory]", s)
	}
	for typ, want := range map[textindex.QueryType]string{
		textindex.QueryTypeMatch: "match", textindex.QueryTypePhrase: "phrase", 7: "QueryType(7)",
	} {
		if got := typ.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", typ, got, want)
		}
	}
}

func TestClosedIndex(t *testing.T) {
	idx := memory.New()
	idx.Close()
	if _, err := idx.Search(textindex.Query{Expression: "x"}); !errors.Is(err, textindex.ErrClosed) {
		t.Errorf("Search after Close = %v, want ErrClosed", err)
	}
	if err := idx.Index(&textindex.Document{LinkID: [16]byte{1}}); !errors.Is(err, textindex.ErrClosed) {
		t.Errorf("Index after Close = %v, want ErrClosed", err)
	}
}

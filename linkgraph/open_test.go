package linkgraph_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/memory"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestOpenErrors(t *testing.T) {
	for _, tc := range []struct {
		raw, want string
		unknown   bool
	}{
		{raw: "nosuch://x", want: `scheme "nosuch" not registered, want one of`, unknown: true},
		// A backend this module ships, not imported: the error names the
		// import (it used to list the registered schemes only, an empty
		// list in a program that imported none).
		{raw: "bolt:///tmp/graph.db", want: `import _ "github.com/linksrus/linksrus/linkgraph/bolt"`, unknown: true},
		{raw: "PostgreSQL://host/db", want: `import _ "github.com/linksrus/linksrus/linkgraph/postgres"`, unknown: true},
		{raw: "/just/a/path", want: "missing scheme", unknown: true},
		{raw: "", want: "missing scheme", unknown: true},
		{raw: "memory://%zz", want: "malformed URL"},
		{raw: "memory://host", want: "memory backend takes no host"},
	} {
		g, err := linkgraph.Open(t.Context(), tc.raw)
		if err == nil {
			g.Close()
			t.Errorf("Open(%q) succeeded", tc.raw)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q) error = %q, want it to contain %q", tc.raw, err, tc.want)
		}
		if errors.Is(err, linkgraph.ErrUnknownScheme) != tc.unknown {
			t.Errorf("Open(%q): errors.Is(err, ErrUnknownScheme) = %v, want %v", tc.raw, !tc.unknown, tc.unknown)
		}
		if tc.unknown && !strings.Contains(err.Error(), "import _") && !strings.Contains(err.Error(), "memory") {
			t.Errorf("Open(%q) error %q does not list the registered schemes", tc.raw, err)
		}
	}
}

func TestOpenIsCaseInsensitive(t *testing.T) {
	g, err := linkgraph.Open(t.Context(), "MEMORY://")
	if err != nil {
		t.Fatalf("Open(MEMORY://): %v", err)
	}
	defer g.Close()
	if _, ok := g.(*memory.Graph); !ok {
		t.Fatalf("Open(MEMORY://) = %T", g)
	}
}

func TestRegisterPanics(t *testing.T) {
	open := func(context.Context, *url.URL) (linkgraph.Graph, error) { return memory.New(), nil }
	linkgraph.Register("registertest", open)
	for name, f := range map[string]func(){
		"duplicate":         func() { linkgraph.Register("RegisterTest", open) },
		"empty scheme":      func() { linkgraph.Register("", open) },
		"nil open function": func() { linkgraph.Register("registertest2", nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register with a %s did not panic", name)
				}
			}()
			f()
		}()
	}
	if !strings.Contains(strings.Join(linkgraph.Schemes(), ","), "registertest") {
		t.Fatalf("Schemes() = %v, missing registertest", linkgraph.Schemes())
	}
}

package memory_test

import (
	"testing"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/graphtest"
	"github.com/linksrus/linksrus/linkgraph/memory"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) {
	graphtest.Run(t, func(*testing.T) linkgraph.Graph { return memory.New() })
}

func TestOpen(t *testing.T) {
	g, err := linkgraph.Open(t.Context(), "memory://")
	if err != nil {
		t.Fatalf("Open(memory://): %v", err)
	}
	if _, ok := g.(*memory.Graph); !ok {
		t.Fatalf("Open(memory://) = %T, want *memory.Graph", g)
	}
	if err := g.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, bad := range []string{"memory://host", "memory:///path", "memory://?x=1"} {
		if g, err := linkgraph.Open(t.Context(), bad); err == nil {
			g.Close()
			t.Errorf("Open(%q) succeeded, want an error", bad)
		}
	}
}

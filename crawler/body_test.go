package crawler

import (
	"context"
	"testing"
	"time"

	graphmem "github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/pipeline"
	indexmem "github.com/linksrus/linksrus/textindex/memory"
)

// The extraction stage hands a page's body back for the next fetch only
// when no processor after the stores, nor a stage of a caller's pipeline
// (Stages), may read it; it keeps the links and text the stores want.
func TestExtractionReleasesBodyWhenLastReader(t *testing.T) {
	keep := pipeline.ProcessorFunc(func(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) { return p, nil })
	const body = `<title>T</title><p>text <a href="/next">next</a>`
	for _, c := range []struct {
		name     string
		cfg      Config
		own      bool // the crawler's own pipeline, not Stages'
		released bool
	}{
		{"links", Config{Graph: graphmem.New()}, true, true},
		{"links and text", Config{Graph: graphmem.New(), Index: indexmem.New()}, true, true},
		{"processor", Config{Graph: graphmem.New(), Processors: []pipeline.Processor{keep}}, true, false},
		{"caller's pipeline", Config{Graph: graphmem.New(), Index: indexmem.New()}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := c.cfg.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			p := NewPayload([16]byte{1}, "http://example.com/page", time.Time{})
			p.Body = append(p.Body, body...)
			if _, err := extractor(cfg, c.own).Process(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			if len(p.Links) != 1 || p.Links[0] != "http://example.com/next" {
				t.Errorf("links = %q", p.Links)
			}
			if (cfg.Index != nil || len(cfg.Processors) > 0) && p.TextContent != "text next" {
				t.Errorf("text = %q", p.TextContent)
			}
			if released := p.Body == nil; released != c.released {
				t.Errorf("body %q after extraction, want released %v", p.Body, c.released)
			}
			p.MarkAsProcessed()
		})
	}
}

package crawler

import (
	"context"
	"fmt"
	"time"

	"github.com/linksrus/linksrus/pipeline"
	"github.com/linksrus/linksrus/textindex"
)

// TextIndexer is the stage that writes each crawled page's title and text
// to the text index, unless the page asked not to be indexed (NoIndex).
type TextIndexer struct {
	indexer Indexer
	now     func() time.Time
}

// NewTextIndexer returns the indexer stage writing to ix.
func NewTextIndexer(ix Indexer) *TextIndexer {
	return &TextIndexer{indexer: ix, now: time.Now}
}

// Process implements pipeline.Processor.
func (t *TextIndexer) Process(_ context.Context, pp pipeline.Payload) (pipeline.Payload, error) {
	p, err := asPayload(pp)
	if err != nil {
		return nil, fmt.Errorf("crawler: index: %w", err)
	}
	if p.NoIndex {
		return p, nil
	}
	doc := &textindex.Document{
		LinkID:    p.LinkID,
		URL:       p.URL,
		Title:     p.Title,
		Content:   p.TextContent,
		IndexedAt: t.now(),
	}
	if err := t.indexer.Index(doc); err != nil {
		return nil, fmt.Errorf("crawler: index %q: %w", p.URL, err)
	}
	return p, nil
}

package crawler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/linksrus/linksrus/pipeline"
	"github.com/linksrus/linksrus/textindex"
)

// maxIndexCalls bounds the Index calls a batch has in flight at once.
const maxIndexCalls = 16

// TextIndexer is the stage that writes each crawled page's title and text
// to the text index, unless the page asked not to be indexed (NoIndex).
//
// It is a pipeline.Processor and a pipeline.BatchProcessor. Indexer has no
// batch call, so a batch is indexed with concurrent Index calls: that lets
// an index that commits concurrent writes together (the embedded SQLite
// index does) spend one commit on many pages, and lets a database index
// overlap its round trips. A batch returns only when every page of it is
// stored.
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
	if err := t.index(p, t.now()); err != nil {
		return nil, err
	}
	return p, nil
}

// ProcessBatch implements pipeline.BatchProcessor: it indexes every page of
// batch and forwards them all, or fails as a whole.
func (t *TextIndexer) ProcessBatch(_ context.Context, batch []pipeline.Payload) error {
	pages := make([]*Payload, 0, len(batch))
	for _, pp := range batch {
		p, err := asPayload(pp)
		if err != nil {
			return fmt.Errorf("crawler: index: %w", err)
		}
		if !p.NoIndex {
			pages = append(pages, p)
		}
	}
	now := t.now()
	if len(pages) == 1 {
		return t.index(pages[0], now)
	}
	errs := make([]error, len(pages))
	var (
		wg   sync.WaitGroup
		next atomic.Int64
	)
	for range min(len(pages), maxIndexCalls) {
		wg.Go(func() {
			for {
				n := int(next.Add(1) - 1)
				if n >= len(pages) {
					return
				}
				errs[n] = t.index(pages[n], now)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// index writes p to the index, unless it is marked NoIndex.
func (t *TextIndexer) index(p *Payload, now time.Time) error {
	if p.NoIndex {
		return nil
	}
	doc := &textindex.Document{
		LinkID:    p.LinkID,
		URL:       p.URL,
		Title:     p.Title,
		Content:   p.TextContent,
		IndexedAt: now,
	}
	if err := t.indexer.Index(doc); err != nil {
		return fmt.Errorf("crawler: index %q: %w", p.URL, err)
	}
	return nil
}

package crawler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/pipeline"
	"github.com/linksrus/linksrus/textindex"
)

// maxIndexCalls bounds the Index calls a batch has in flight at once.
const maxIndexCalls = 16

// TextIndexer is the stage that writes each crawled page's title and text
// to the text index, unless the page asked not to be indexed (NoIndex).
//
// It is a pipeline.Processor and a pipeline.BatchProcessor. When the
// Indexer also implements textindex.BatchIndexer (every textindex backend
// does), a batch is one IndexBatch call: one transaction or round trip for
// all its pages, and all or nothing. Otherwise a batch is indexed with
// concurrent Index calls, which lets an index that commits concurrent
// writes together spend one commit on many pages and a database index
// overlap its round trips. Either way a batch returns only when every page
// of it is stored.
type TextIndexer struct {
	indexer Indexer
	now     func() time.Time
	// besideGraph: the indexer runs beside the graph updater, so a page's
	// ID in the graph (PageID) is not known yet. It indexes the pages
	// whose ID the source gave (LinkID) and leaves the others, redirected
	// pages (stored under their final URL's ID) and links without an ID,
	// to the RetrievalMarker after both (see leftToMarker).
	besideGraph bool
}

// leftToMarker reports the pages an indexer beside the graph leaves to the
// RetrievalMarker, which indexes them once the graph has their ID.
func leftToMarker(p *Payload) bool { return p.redirected() || p.LinkID == uuid.Nil }

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
		if !t.skips(p) {
			pages = append(pages, p)
		}
	}
	now := t.now()
	if bi, ok := t.indexer.(textindex.BatchIndexer); ok {
		return t.indexBatch(bi, pages, now)
	}
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

// indexBatch writes pages, none of them NoIndex, with one IndexBatch call.
func (t *TextIndexer) indexBatch(bi textindex.BatchIndexer, pages []*Payload, now time.Time) error {
	if len(pages) == 0 {
		return nil
	}
	docs := make([]*textindex.Document, 0, len(pages))
	for _, p := range pages {
		docs = t.documents(docs, p, now)
	}
	if err := bi.IndexBatch(docs); err != nil {
		return fmt.Errorf("crawler: index batch of %d pages: %w", len(docs), err)
	}
	return nil
}

// skips reports whether the indexer leaves p alone: the page asked not to
// be indexed, or it is unchanged since its text was indexed, or, beside the
// graph, the RetrievalMarker indexes it (see leftToMarker).
func (t *TextIndexer) skips(p *Payload) bool {
	return p.NoIndex || p.Unchanged || (t.besideGraph && leftToMarker(p))
}

// index writes p to the index, unless it is marked NoIndex.
func (t *TextIndexer) index(p *Payload, now time.Time) error {
	if t.skips(p) {
		return nil
	}
	var buf [2]*textindex.Document
	for _, d := range t.documents(buf[:0], p, now) {
		if err := t.indexer.Index(d); err != nil {
			return fmt.Errorf("crawler: index %q: %w", d.URL, err)
		}
	}
	return nil
}

// documents appends the index's documents of page p to docs: the page's
// own, and for a redirected page the alias of the URL that redirected,
// a document of the same text marked Redirect. The index groups documents
// by ContentHash and shows each group once (see the textindex package
// documentation's Duplicates), so a redirect and a page found under
// several URLs are one search result the same way, listing the other
// URLs; the graph has the same alias as a link with one edge (see
// GraphUpdater).
func (t *TextIndexer) documents(docs []*textindex.Document, p *Payload, now time.Time) []*textindex.Document {
	d := t.document(p, now)
	docs = append(docs, d)
	if t.besideGraph || !p.redirected() || p.PageID == uuid.Nil {
		return docs
	}
	alias := p.aliasID
	if alias == uuid.Nil {
		alias = p.LinkID
	}
	if alias == uuid.Nil || alias == p.PageID {
		return docs
	}
	a := *d
	a.LinkID, a.URL, a.Redirect = alias, p.URL, true
	return append(docs, &a)
}

// document is the index's view of page p, indexed at now: under the ID
// the graph stores it under (PageID, its final URL's for a redirected
// page), or, beside the graph, under the source's LinkID, which is the
// same for the pages that indexer keeps (it never reads PageID, which the
// graph updater may be setting at that moment).
func (t *TextIndexer) document(p *Payload, now time.Time) *textindex.Document {
	id, url := p.LinkID, p.URL
	if !t.besideGraph && p.PageID != uuid.Nil {
		id = p.PageID
		if p.redirected() {
			url = p.FinalURL
		}
	}
	return &textindex.Document{
		LinkID:      id,
		URL:         url,
		Title:       p.Title,
		Content:     p.TextContent,
		Headings:    p.Headings,
		Language:    p.Language,
		Links:       links(p),
		IndexedAt:   now,
		ContentHash: textindex.ContentHash(p.Title, p.TextContent),
	}
}

// links returns the links of p that say something (LinkTexts), for the
// index to give the pages they lead to as anchor text.
func links(p *Payload) []textindex.Link {
	var out []textindex.Link
	for i, l := range p.Links {
		if text := p.LinkText(i); text != "" {
			if out == nil {
				out = make([]textindex.Link, 0, len(p.Links)-i)
			}
			out = append(out, textindex.Link{URL: l, Text: text})
		}
	}
	return out
}

package memory

import (
	"fmt"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/docbatch"
)

var _ textindex.BatchIndexer = (*Index)(nil)

// IndexBatch stores docs under one lock; see textindex.BatchIndexer.
// Searches see either none of the batch or all of it.
func (i *Index) IndexBatch(docs []*textindex.Document) error {
	docs, err := docbatch.Prepare(docs)
	if err != nil {
		return fmt.Errorf("memory: index batch: %w", err)
	}
	if len(docs) == 0 {
		return nil
	}
	// As in Index, the terms are found before taking the lock.
	words := make([][numFields][]string, len(docs))
	for n, d := range docs {
		words[n] = split(d)
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed {
		return fmt.Errorf("memory: index batch: %w", textindex.ErrClosed)
	}
	for n, d := range docs {
		i.put(d, words[n])
	}
	return nil
}

package sqlite

import (
	"context"
	"fmt"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/docbatch"
)

var _ textindex.BatchIndexer = (*Index)(nil)

// IndexBatch stores docs in one transaction; see textindex.BatchIndexer.
// The documents go through the same prepared statements as Index, and
// their text reaches FTS5 in one statement, so a batch costs one commit
// and one new index segment however many documents it holds. Concurrent
// batches (and Index calls) are committed together as Index describes.
// A batch that fails is rolled back as a whole.
func (i *Index) IndexBatch(docs []*textindex.Document) error {
	docs, err := docbatch.Prepare(docs)
	if err != nil {
		return fmt.Errorf("sqlite: index batch: %w", err)
	}
	if len(docs) == 0 {
		return nil
	}
	ops := make([]func(context.Context, *writer, *textBatch) error, len(docs))
	for n, d := range docs {
		ops[n] = indexOp(d)
	}
	err = i.w.do(func(ctx context.Context, w *writer, text *textBatch) error {
		for n, op := range ops {
			if err := op(ctx, w, text); err != nil {
				return fmt.Errorf("%s: %w", docs[n].LinkID, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: index batch of %d: %w", len(docs), err)
	}
	return nil
}

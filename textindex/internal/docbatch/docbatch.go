// Package docbatch validates the documents of a textindex.BatchIndexer
// call the same way for every backend, so that they agree on which batches
// are refused and on which copy of a repeated LinkID is stored.
package docbatch

import (
	"fmt"
	"math"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

// Prepare checks every document of docs and returns them with only the
// last document of each LinkID kept, in the order of first appearance. A
// backend writing the result in one statement needs it: a row may not be
// touched twice by one upsert. The first invalid document makes Prepare
// fail with textindex.ErrMissingLinkID or textindex.ErrInvalidScore,
// wrapped with its position.
func Prepare(docs []*textindex.Document) ([]*textindex.Document, error) {
	pos := make(map[uuid.UUID]int, len(docs))
	out := make([]*textindex.Document, 0, len(docs))
	for n, d := range docs {
		if d == nil || d.LinkID == uuid.Nil {
			return nil, fmt.Errorf("document %d: %w", n, textindex.ErrMissingLinkID)
		}
		if math.IsNaN(d.PageRank) || math.IsInf(d.PageRank, 0) {
			return nil, fmt.Errorf("document %d (%s): %w", n, d.LinkID, textindex.ErrInvalidScore)
		}
		if p, ok := pos[d.LinkID]; ok {
			out[p] = d
			continue
		}
		pos[d.LinkID] = len(out)
		out = append(out, d)
	}
	return out, nil
}

package postgres

import (
	"context"
	"fmt"

	"github.com/linksrus/linksrus/linkgraph/internal/graphutil"
)

// pageSize is how many rows one query of an iterator reads. Reading in pages
// (keyset pagination on the primary key) means an iterator holds no
// connection or transaction between pages, so a slow consumer such as a
// crawl neither starves the pool nor keeps a long transaction open (which
// holds back VACUUM).
const pageSize = 1000

// pager returns a graphutil.Pager over a keyset-paginated query: fetch
// returns the page after last (the first page when last is nil), retried on
// serialization failures. An empty range gives an empty pager.
func pager[T any](g *Graph, op string, empty bool, fetch func(ctx context.Context, last *T) ([]*T, error)) *graphutil.Pager[T] {
	if empty {
		return graphutil.NewPager[T](nil)
	}
	var last *T
	return graphutil.NewPager(func() ([]*T, bool, error) {
		var page []*T
		err := retry(g.ctx, func(ctx context.Context) error {
			var err error
			page, err = fetch(ctx, last)
			return err
		})
		if err != nil {
			return nil, false, fmt.Errorf("postgres graph: %s: %w", op, err)
		}
		if len(page) > 0 {
			last = page[len(page)-1]
		}
		return page, len(page) == pageSize, nil
	})
}

package frontier_test

import (
	"context"
	"fmt"

	"github.com/linksrus/linksrus/crawler/frontier"
)

func Example() {
	ctx := context.Background()
	q, err := frontier.New[string](3, 100) // 0: robots.txt, 1: shallow, 2: deep
	if err != nil {
		panic(err)
	}
	_ = q.Push(ctx, 2, "http://example.com/a/b/c")
	_ = q.Push(ctx, 1, "http://example.com/a")
	_ = q.Push(ctx, 0, "http://example.com/robots.txt")
	_ = q.Push(ctx, 1, "http://example.com/b")
	q.Close() // no more items: consumers drain the queue, then get ErrClosed

	for {
		u, err := q.Pop(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(u)
	}
	// Output:
	// http://example.com/robots.txt
	// http://example.com/a
	// http://example.com/b
	// http://example.com/a/b/c
	// frontier: queue closed
}

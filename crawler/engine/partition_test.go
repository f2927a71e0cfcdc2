package engine_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler/engine"
)

func TestSharesCoverTheSpaceExactlyOnce(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7} {
		parts := make([]*engine.Partition, n)
		for i := range parts {
			p, err := engine.Share(i, n, 0)
			if err != nil {
				t.Fatal(err)
			}
			parts[i] = p
		}
		ids := []uuid.UUID{uuid.Nil, uuid.Max}
		for range 2000 {
			ids = append(ids, uuid.New())
		}
		for _, id := range ids {
			hits := 0
			for _, p := range parts {
				if p.Contains(id) {
					hits++
				}
			}
			if hits != 1 {
				t.Fatalf("n=%d: %v is in %d shares, want 1", n, id, hits)
			}
		}
	}
	for _, in := range [][2]int{{1, 1}, {-1, 2}, {0, 0}, {3, 2}} {
		if _, err := engine.Share(in[0], in[1], 0); !errors.Is(err, engine.ErrOptions) {
			t.Errorf("Share(%d, %d): %v, want ErrOptions", in[0], in[1], err)
		}
	}
}

// Three processes sharing one graph each crawl a third of its links.
func ExampleShare() {
	for i := range 3 {
		p, _ := engine.Share(i, 3, 0)
		fmt.Println(p.From, p.To)
	}
	// Output:
	// 00000000-0000-0000-0000-000000000000 55555555-5555-5556-0000-000000000000
	// 55555555-5555-5556-0000-000000000000 aaaaaaaa-aaaa-aaac-0000-000000000000
	// aaaaaaaa-aaaa-aaac-0000-000000000000 00000000-0000-0000-0000-000000000000
}

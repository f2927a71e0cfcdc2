package postgres

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler/workqueue"
	"github.com/linksrus/linksrus/linkgraph"
)

// TestCapacity measures the figures of README's capacity model: bytes per
// link, edge, queued link and host row on disk (tables and their indexes),
// from a generated graph of LINKSRUS_CAPACITY links (10 edges each, 1 host
// per 100 links). It runs only when that variable is set:
//
//	LINKSRUS_CAPACITY=100000 go test -run Capacity -v ./linkgraph/postgres
func TestCapacity(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("LINKSRUS_CAPACITY"))
	if n <= 0 {
		t.Skip("set LINKSRUS_CAPACITY=<links> to measure the capacity model's figures")
	}
	ctx := context.Background()
	g, err := Open(ctx, testDatabase(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	const batch = 1000
	links := make([]*linkgraph.Link, n)
	start := time.Now()
	for i := range links {
		// URLs of a typical length (about 60 bytes).
		links[i] = &linkgraph.Link{URL: fmt.Sprintf("https://www.host%06d.example.com/docs/section/page-%08d.html", i/100, i)}
	}
	for i := 0; i < n; i += batch {
		if err := g.UpsertLinks(links[i:min(i+batch, n)]); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d links in %v", n, time.Since(start))
	start = time.Now()
	var edges []*linkgraph.Edge
	for i, l := range links {
		for k := 1; k <= 10; k++ {
			edges = append(edges, &linkgraph.Edge{Src: l.ID, Dst: links[(i+k*7919)%n].ID})
		}
		if len(edges) >= 10*batch || i == n-1 {
			if err := g.UpsertEdges(edges); err != nil {
				t.Fatal(err)
			}
			edges = edges[:0]
		}
	}
	t.Logf("%d edges in %v", 10*n, time.Since(start))
	q := g.WorkQueue()
	var queued []workqueue.Link
	for i, l := range links {
		queued = append(queued, workqueue.Link{ID: l.ID, Host: fmt.Sprintf("www.host%06d.example.com", i/100)})
		if len(queued) == batch || i == n-1 {
			if err := q.Enqueue(ctx, queued); err != nil {
				t.Fatal(err)
			}
			queued = queued[:0]
		}
	}
	// A robots.txt cached for every host, as a crawl leaves it (a typical
	// file of about 500 bytes).
	const rules = "User-agent: *\nDisallow: /private/\n"
	robots := make([]byte, 500)
	for i := range robots {
		robots[i] = rules[i%len(rules)]
	}
	if _, err := g.pool.Exec(ctx, "UPDATE crawl_hosts SET robots_origin = 'https://' || host, robots_basis = 0, robots_body = $1, robots_expires = now(), owner = $2, lease_expires = now(), claimed_at = now()", robots, uuid.New()); err != nil {
		t.Fatal(err)
	}
	if _, err := g.pool.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		t.Fatal(err)
	}
	// An edge list's row holds a page's edges: bytes per edge count its
	// elements.
	for _, table := range []struct{ name, count string }{
		{"links", "count(*)"},
		{"edge_lists", "sum(cardinality(dsts))"},
		{"crawl_queue", "count(*)"},
		{"crawl_hosts", "count(*)"},
	} {
		var rows, bytes int64
		if err := g.pool.QueryRow(ctx, "SELECT "+table.count+"::BIGINT, pg_total_relation_size($1::regclass) FROM "+table.name, table.name).Scan(&rows, &bytes); err != nil {
			t.Fatal(err)
		}
		t.Logf("%-12s %10d items %12d bytes %8.1f bytes/item", table.name, rows, bytes, float64(bytes)/float64(rows))
	}
}

package postgres

import (
	"os"
	"strconv"
	"testing"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/graphtest"
)

func BenchmarkGraph(b *testing.B) {
	dsn := testDatabase(b)
	graphtest.Bench(b, func(b *testing.B) linkgraph.Graph {
		g, err := Open(b.Context(), dsn, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := g.pool.Exec(b.Context(), "TRUNCATE edge_lists, links"); err != nil {
			b.Fatal(err)
		}
		return g
	})
}

// TestLoad upserts LINKSRUS_LOAD_LINKS links with 10 edges each into a
// fresh database and logs the throughput. It is too slow for CI and runs
// only when asked:
//
//	LINKSRUS_LOAD_LINKS=1000000 LINKSRUS_TEST_PG=... go test -run TestLoad -v -timeout 1h ./linkgraph/postgres/
func TestLoad(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("LINKSRUS_LOAD_LINKS"))
	if n <= 0 {
		t.Skip("load test skipped: set LINKSRUS_LOAD_LINKS (e.g. 1000000) to run it")
	}
	g, err := Open(t.Context(), testDatabase(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	res, err := graphtest.Load(g, n, 10, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var size int64
	if err := g.pool.QueryRow(t.Context(), "SELECT pg_database_size(current_database())").Scan(&size); err != nil {
		t.Fatal(err)
	}
	t.Logf("postgres: %v; database %d MiB (%.0f bytes/link)", res, size>>20, float64(size)/float64(n))
}

// BenchmarkCrawlEdges upserts edges the way a crawl's store batch does,
// into a graph of LINKSRUS_BENCH_LINKS links (default 100,000): 40 pages
// of that graph, each with 30 links, half of them new and half known,
// whose links were upserted just before (not timed). "known" is the
// graph as it is, "forgotten" forgets the links it has seen stored
// before each batch, so that every end is looked up in the database.
//
//	LINKSRUS_BENCH_LINKS=300000 go test -run '^$' -bench CrawlEdges ./linkgraph/postgres
func BenchmarkCrawlEdges(b *testing.B) {
	n, _ := strconv.Atoi(os.Getenv("LINKSRUS_BENCH_LINKS"))
	if n <= 0 {
		n = 100_000
	}
	g, err := Open(b.Context(), testDatabase(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	links := make([]*linkgraph.Link, n)
	for i := range links {
		links[i] = &linkgraph.Link{URL: graphtest.BenchURL(i)}
	}
	for i := 0; i < n; i += 1000 {
		if err := g.UpsertLinks(links[i:min(i+1000, n)]); err != nil {
			b.Fatal(err)
		}
	}
	const pages, perPage = 40, 30
	for _, forget := range []bool{false, true} {
		name := "known"
		if forget {
			name = "forgotten"
		}
		b.Run(name, func(b *testing.B) {
			// Each batch adds to edge lists of its own, as a crawl does.
			if _, err := g.pool.Exec(b.Context(), "TRUNCATE edge_lists"); err != nil {
				b.Fatal(err)
			}
			batch := 0
			for b.Loop() {
				b.StopTimer()
				found := make([]*linkgraph.Link, 0, pages*perPage)
				edges := make([]*linkgraph.Edge, 0, pages*perPage)
				for p := range pages {
					src := links[(batch*pages+p)%n]
					for k := range perPage {
						l := &linkgraph.Link{URL: "https://new.example.com/" + uuid.NewString()}
						if k%2 == 1 {
							l.URL = links[(batch*1231+p*31+k*7919)%n].URL
						}
						found = append(found, l)
						edges = append(edges, &linkgraph.Edge{Src: src.ID})
					}
				}
				if err := g.UpsertLinks(found); err != nil {
					b.Fatal(err)
				}
				for i, e := range edges {
					e.Dst = found[i].ID
				}
				if forget {
					g.known.forget()
				}
				batch++
				b.StartTimer()
				if err := g.UpsertEdges(edges); err != nil {
					b.Fatal(err)
				}
			}
			if s := b.Elapsed().Seconds(); s > 0 {
				b.ReportMetric(float64(batch*pages*perPage)/s, "edges/s")
			}
		})
	}
}

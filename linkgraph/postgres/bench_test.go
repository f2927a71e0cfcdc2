package postgres

import (
	"os"
	"strconv"
	"testing"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/graphtest"
)

func BenchmarkGraph(b *testing.B) {
	dsn := testDatabase(b)
	graphtest.Bench(b, func(b *testing.B) linkgraph.Graph {
		g, err := Open(b.Context(), dsn)
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
	g, err := Open(t.Context(), testDatabase(t))
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

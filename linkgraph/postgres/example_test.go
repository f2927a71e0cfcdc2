package postgres_test

import (
	"context"
	"log"

	"github.com/linksrus/linksrus/linkgraph"
	_ "github.com/linksrus/linksrus/linkgraph/postgres" // registers postgres: and postgresql:
)

// Opening a PostgreSQL graph applies the schema migrations;
// pgx pool options go in the URL. (Not run: it needs a server.)
func Example() {
	g, err := linkgraph.Open(context.Background(),
		"postgresql://crawler@127.0.0.1:26257/linksrus?sslmode=disable&pool_max_conns=16")
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
}

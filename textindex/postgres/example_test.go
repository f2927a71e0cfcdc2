package postgres_test

import (
	"context"
	"log"

	"github.com/linksrus/linksrus/textindex"
	_ "github.com/linksrus/linksrus/textindex/postgres" // registers postgres:// and postgresql://
)

// Example opens an index on a PostgreSQL server; the schema is created or
// migrated on the way. (Not run: it needs a server.)
func Example() {
	idx, err := textindex.Open(context.Background(), "postgres://linksrus@127.0.0.1:5432/linksrus?sslmode=disable&pool_max_conns=8")
	if err != nil {
		log.Fatal(err)
	}
	defer idx.Close()
	it, err := idx.Search(textindex.Query{Type: textindex.QueryTypePhrase, Expression: "full-text search"})
	if err != nil {
		log.Fatal(err)
	}
	defer it.Close()
	log.Printf("%d pages", it.TotalCount())
}

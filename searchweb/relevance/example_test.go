package relevance_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/searchweb/relevance"
	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/memory"
)

func Example() {
	idx := memory.New()
	for _, d := range []struct{ path, title, text string }{
		{"sql-vacuum.html", "VACUUM", "VACUUM garbage-collects and optionally analyzes a database."},
		{"routine-vacuuming.html", "Routine Vacuuming", "PostgreSQL databases require periodic maintenance known as vacuuming."},
		{"sql-createindex.html", "CREATE INDEX", "CREATE INDEX constructs an index on the specified column of a table; see also VACUUM."},
		{"indexes-intro.html", "Indexes", "Indexes are a common way to enhance database performance; CREATE INDEX makes one."},
	} {
		_ = idx.Index(&textindex.Document{LinkID: uuid.New(), URL: "http://docs.test/" + d.path, Title: d.title, Content: d.text})
	}

	// A judged set names, for each query, the pages that answer it.
	set, err := relevance.Parse(strings.NewReader(
		"vacuum\tsql-vacuum.html routine-vacuuming.html\n" +
			"create index\tsql-createindex.html\n" +
			"database\tindexes-intro.html\n" +
			"autovacuum\truntime-config-autovacuum.html\n"))
	if err != nil {
		panic(err)
	}
	outcomes, err := relevance.Evaluate(context.Background(), idx, set, relevance.Options{Base: "http://docs.test/"})
	if err != nil {
		panic(err)
	}
	for _, o := range outcomes {
		fmt.Printf("%-18s place %d\n", o.Query, o.Place)
	}
	fmt.Println(relevance.Summarize(relevance.Places(outcomes)))
	// Output:
	// vacuum             place 1
	// create index       place 1
	// database           place 2
	// autovacuum         place 0
	// MRR@10 0.625  success@1 2/4  success@3 3/4
}

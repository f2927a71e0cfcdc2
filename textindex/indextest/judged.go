package indextest

import (
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
)

// judgedPage is a page of the judged corpus: a small manual of a
// database, as its pages are titled, addressed and written, with
// navigation left out as the crawler leaves it out.
type judgedPage struct {
	path, title, text string
	pageRank          float64 // relative to the average page
}

var judgedPages = []judgedPage{
	{"/sql-vacuum.html", "VACUUM", "Reclaims storage occupied by dead tuples; a plain VACUUM runs beside normal reads and writes of the table.", 3},
	{"/routine-vacuuming.html", "Routine Maintenance", "Databases need VACUUM regularly: VACUUM recovers space, VACUUM updates statistics and VACUUM prevents wraparound. The autovacuum daemon does it, autovacuum can be tuned, and autovacuum logs its work.", 4},
	{"/runtime-config-autovacuum.html", "Automatic Vacuuming", "These settings control the autovacuum daemon: how often it wakes, and when a table is vacuumed or analyzed.", 2},
	{"/sql-createindex.html", "CREATE INDEX", "Constructs an index on the specified column of a table, to enhance database performance.", 3},
	{"/indexes-types.html", "Index Types", "Several index types are provided, and each index type suits other queries: a B-tree index, a hash index, a GiST index, a GIN index. To create an index of another type, name it.", 2},
	{"/app-psql.html", "psql", "A terminal-based front-end: type in queries interactively and see their results.", 2},
	{"/tutorial-accessdb.html", "Accessing a Database", "Access a database with psql: start psql, type queries in psql, and quit psql when done; a graphical frontend works too.", 1},
	// As long as each other, with the words once each: PageRank decides.
	{"/catalog-pg-constraint.html", "pg_constraint", "The catalog stores check, unique, foreign key and exclusion constraints on tables, one row for each constraint with its columns.", 1},
	{"/ddl-constraints.html", "Constraints", "A foreign key constraint specifies that the values in a column must match the values appearing in some row of another table.", 3},
	{"/wal-intro.html", "Write-Ahead Logging", "A standard method for data integrity: changes are logged before they are written to the data files.", 2},
	{"/wal-configuration.html", "WAL Configuration", "Parameters of the log: how often to write, ahead of what, and a write ahead of time; write ahead logging, write ahead of the checkpoint.", 2},
}

// judgedQueries are the corpus's queries and the page that answers each.
// Each answer is found by a field or the prior: with every field weighing
// the same and no prior, another page comes first.
var judgedQueries = []struct {
	query, answer string
}{
	{"vacuum", "/sql-vacuum.html"},                    // the title, where another says it four times
	{"autovacuum", "/runtime-config-autovacuum.html"}, // the URL's path, where another says it three times
	{"create index", "/sql-createindex.html"},         // the title
	{"psql", "/app-psql.html"},                        // titled so, where another says it four times
	{"foreign key", "/ddl-constraints.html"},          // PageRank
	{`"write ahead"`, "/wal-intro.html"},              // a phrase in the title, where another has it three times
}

// testJudgedOrder: on a small judged corpus every backend puts the page
// that answers each query first, the order and not only the hits being
// the same everywhere (fields, the prior, phrases).
func testJudgedOrder(t *testing.T, idx textindex.Indexer) {
	ids := make(map[uuid.UUID]string)
	for n, p := range judgedPages {
		d := &textindex.Document{LinkID: uuid.UUID{15: byte(n + 1)}, URL: "https://docs.example.com" + p.path,
			Title: p.title, Content: p.text, IndexedAt: newDoc("", "").IndexedAt}
		mustIndex(t, idx, d)
		if err := idx.UpdateScore(d.LinkID, p.pageRank); err != nil {
			t.Fatal(err)
		}
		ids[d.LinkID] = p.path
	}
	for _, q := range judgedQueries {
		got, _ := search(t, idx, textindex.Query{Type: textindex.QueryTypeSearch, Expression: q.query})
		var order []string
		for _, d := range got {
			order = append(order, fmt.Sprintf("%s (%.3f + %.3f)", ids[d.LinkID], d.Relevance, textindex.DefaultWeights.Prior(d.PageRank)))
		}
		if len(got) == 0 || ids[got[0].LinkID] != q.answer {
			t.Errorf("%s: %v, want %s first", q.query, order, q.answer)
		}
	}
}

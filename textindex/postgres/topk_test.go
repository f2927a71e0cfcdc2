package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/linksrus/linksrus/internal/pgtest"
	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/indextest"
)

// fullRankingSQL ranks every hit with its anchor text joined in the
// plainest statement, which planners may run badly (see pageSQL) but
// whose meaning is plain: the reference a search's pages must equal. Its
// verbs are pageSQL's.
const fullRankingSQL = `
	WITH q AS MATERIALIZED (
		SELECT $%d::FLOAT4[] AS w, $%d::FLOAT8 AS stem, $%d::FLOAT8 AS prior, $%d::FLOAT8 AS anchor, %s AS qe
	), anchored AS MATERIALIZED (
		SELECT a.link_id, q.anchor * (ts_rank(a.tsv, q.qe) + %[7]s) AS rank
		FROM textindex_anchors a, q
		WHERE q.anchor > 0 AND %[6]s
	)
	SELECT d.link_id, r.rel
	FROM textindex_documents d
		LEFT JOIN anchored a ON a.link_id = d.link_id,
		q,
		LATERAL (SELECT %[8]g * (ts_rank(q.w, d.tsv, q.qe) + %[9]s + coalesce(a.rank, 0)) AS rel) r
	WHERE %[10]s AND ` + canonicalSQL + `
	ORDER BY r.rel + q.prior * ln(1 + greatest(d.page_rank, 0)) DESC, d.link_id
	LIMIT $%[11]d OFFSET $%[12]d -- %[13]s`

// TestPageEqualsFullRanking checks that a search's pages are those of the
// full ranking (fullRankingSQL), hit for hit and score for score, on a
// generated corpus with anchor text (indextest.Load), for broad and
// narrow words, several words, phrases and later pages, with the hits
// ranked by parallel workers and by one process.
func TestPageEqualsFullRanking(t *testing.T) {
	ctx := context.Background()
	idx := loadedIndex(t)
	var frequent, rare []string
	err := idx.pool.QueryRow(ctx, `SELECT array_agg(word ORDER BY ndoc DESC, word) FILTER (WHERE ndoc > 1000),
		array_agg(word ORDER BY ndoc, word) FILTER (WHERE ndoc BETWEEN 5 AND 50)
		FROM ts_stat('SELECT tsv FROM textindex_documents')`).Scan(&frequent, &rare)
	if err != nil || len(frequent) < 4 || len(rare) < 4 {
		t.Fatalf("words of the corpus: %d frequent, %d rare, %v", len(frequent), len(rare), err)
	}
	var linked []string // the words most anchor texts hold
	err = idx.pool.QueryRow(ctx, `SELECT array_agg(word ORDER BY ndoc DESC, word)
		FROM (SELECT * FROM ts_stat('SELECT tsv FROM textindex_anchors') ORDER BY ndoc DESC, word LIMIT 3) s`).Scan(&linked)
	if err != nil || len(linked) < 3 {
		t.Fatalf("words of the anchor text: %v, %v", linked, err)
	}
	var text string
	if err := idx.pool.QueryRow(ctx, `SELECT content FROM textindex_documents ORDER BY link_id LIMIT 1`).Scan(&text); err != nil {
		t.Fatal(err)
	}
	words := strings.Fields(text)
	absent := rare[slices.IndexFunc(rare, func(w string) bool { return !slices.Contains(words, w) })]
	queries := []textindex.Query{
		{Expression: frequent[0]},
		{Expression: frequent[0] + " " + frequent[1]},
		{Expression: frequent[2] + " " + frequent[3] + " " + frequent[0]},
		{Expression: rare[0]},
		{Expression: rare[1] + " " + frequent[0]},
		{Type: textindex.QueryTypePhrase, Expression: words[0] + " " + words[1]},
		{Type: textindex.QueryTypeSearch, Expression: words[4] + ` "` + words[2] + " " + words[3] + `" -` + absent},
		{Expression: linked[0]},
		{Expression: linked[1] + " " + linked[2], Offset: 3},
		{Expression: frequent[0], Offset: 60},
		{Expression: frequent[1], Offset: 500, URLsOnly: true},
	}
	// Pages found by parallel workers (on a table the planner knows the
	// words of, whatever its size: TestPagePlan), and by the one process:
	// the same pages either way.
	for _, workers := range []int{2, 0} {
		if _, err := idx.pool.Exec(ctx, fmt.Sprintf(`ALTER TABLE textindex_documents SET (parallel_workers = %d);
			ALTER TABLE textindex_anchors SET (parallel_workers = %[1]d);
			ANALYZE textindex_documents, textindex_anchors`, workers)); err != nil {
			t.Fatal(err)
		}
		for _, q := range queries {
			got := searchPage(t, idx, q, 70)
			want := referencePage(t, idx, q, 70)
			if len(want) == 0 {
				t.Errorf("%+v: the reference finds nothing", q)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%d workers, %+v:\n got %v\nwant %v", workers, q, got, want)
			}
		}
	}
}

// loadedIndex returns an index of a new database holding the generated
// corpus of 3,000 documents with anchor text (indextest.Load), closed
// when the test ends.
func loadedIndex(t *testing.T) *Index {
	t.Helper()
	ctx := context.Background()
	idx, err := Open(ctx, pgtest.Database(t, "textindex"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	if _, err := indextest.Load(ctx, idx, 3000, 0, 0); err != nil {
		t.Fatal(err)
	}
	return idx
}

// scored is a result as the comparison sees it.
type scored struct {
	id  uuid.UUID
	rel float64
}

func (s scored) String() string { return fmt.Sprintf("%s/%.6f", s.id.String()[:8], s.rel) }

// searchPage returns the first n results of q through Search.
func searchPage(t *testing.T, idx *Index, q textindex.Query, n int) []scored {
	t.Helper()
	it, err := idx.Search(q)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []scored
	for len(out) < n && it.Next() {
		out = append(out, scored{it.Document().LinkID, it.Document().Relevance})
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return out
}

// referencePage returns the first n results of q as fullRankingSQL ranks
// them, built as Search builds its statement.
func referencePage(t *testing.T, idx *Index, q textindex.Query, n int) []scored {
	t.Helper()
	s, _ := searchOf(q)
	w, err := textindex.WeightsOf(q)
	if err != nil {
		t.Fatal(err)
	}
	_, sql, args, ok := searchSQL(s, q, fullRankingSQL)
	if !ok {
		t.Fatalf("%+v: no statement", q)
	}
	rows, err := idx.pool.Query(context.Background(), sql, pageArgs(args, w, n, q.Offset)...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (scored, error) {
		var s scored
		err := r.Scan(&s.id, &s.rel)
		return s, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPagePlan checks the plan of a search's page (pageSQL) as fetchPage
// runs it. On a table the planner has no statistics of (a fresh index,
// words in most documents), its hits are joined to their anchor text by a
// hash, never by a loop over both (which took 5.3 s for two words in
// 97,705 of 100,000 documents), and the few shared hashes are read by
// the one process. On a table it has statistics of, the hits
// of words in most documents are found and ranked by parallel workers,
// below the Gather (a word in all of 100,000 documents: 250 -> 170 ms),
// which a reference to a CTE or a correlated subquery in the subquery
// that ranks them would prevent.
func TestPagePlan(t *testing.T) {
	ctx := context.Background()
	idx := loadedIndex(t)
	var frequent []string
	err := idx.pool.QueryRow(ctx, `SELECT array_agg(word ORDER BY ndoc DESC, word)
		FROM (SELECT * FROM ts_stat('SELECT tsv FROM textindex_anchors') ORDER BY ndoc DESC, word LIMIT 2) s`).Scan(&frequent)
	if err != nil || len(frequent) < 2 {
		t.Fatalf("words of the anchor text: %v, %v", frequent, err)
	}
	queries := []string{frequent[0], frequent[0] + " " + frequent[1]}
	plan := func(expr string) map[string]any {
		q := textindex.Query{Expression: expr}
		s, _ := searchOf(q)
		w, _ := textindex.WeightsOf(q)
		_, page, args, _ := searchSQL(s, q, pageSQL)
		var plan []map[string]any
		err := pgx.BeginTxFunc(ctx, idx.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, pageSettings); err != nil {
				return err
			}
			// The test's table is small; the benchmark's is not.
			if _, err := tx.Exec(ctx, `SET LOCAL min_parallel_table_scan_size = 0`); err != nil {
				return err
			}
			return tx.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+page, append([]any{planned}, pageArgs(args, w, 10, 0)...)...).Scan(&plan)
		})
		if err != nil {
			t.Fatal(err)
		}
		return plan[0]["Plan"].(map[string]any)
	}

	if _, err := idx.pool.Exec(ctx, `
		DELETE FROM pg_statistic WHERE starelid IN ('textindex_documents'::regclass, 'textindex_anchors'::regclass);
		UPDATE pg_class SET reltuples = -1 WHERE oid IN ('textindex_documents'::regclass, 'textindex_anchors'::regclass)`); err != nil {
		t.Fatal(err)
	}
	for _, expr := range queries {
		root := plan(expr)
		if joins := joinsOf(root, "textindex_anchors", nil); len(joins) != 1 || joins[0] != "Hash Join" {
			t.Errorf("%q without statistics: the hits are joined to their anchor text by %v, want one Hash Join", expr, joins)
		}
		// Read once for the statement, and few (migration 0009).
		if scannedBelowGather(root, "textindex_hashes", false) {
			t.Errorf("%q without statistics: the shared hashes are read by parallel workers", expr)
		}
	}

	if _, err := idx.pool.Exec(ctx, `ANALYZE textindex_documents, textindex_anchors`); err != nil {
		t.Fatal(err)
	}
	for _, expr := range queries {
		root := plan(expr)
		if joins := joinsOf(root, "textindex_anchors", nil); len(joins) != 1 || joins[0] != "Hash Join" {
			t.Errorf("%q: the hits are joined to their anchor text by %v, want one Hash Join", expr, joins)
		}
		if !scannedBelowGather(root, "textindex_documents", false) {
			t.Errorf("%q: the hits are not found by parallel workers:\n%v", expr, root)
		}
	}
}

// joinsOf appends to joins the type of every join node of a plan with a
// scan of table as an input, directly or through a Hash.
func joinsOf(node map[string]any, table string, joins []string) []string {
	children, _ := node["Plans"].([]any)
	for _, c := range children {
		child := c.(map[string]any)
		if child["Parent Relationship"] == "SubPlan" {
			continue // a lookup of the page's rows, not a join
		}
		scan := child
		if child["Node Type"] == "Hash" || child["Node Type"] == "Sort" || child["Node Type"] == "Materialize" {
			if grand, _ := child["Plans"].([]any); len(grand) == 1 {
				scan = grand[0].(map[string]any)
			}
		}
		join := node["Node Type"] == "Nested Loop" || node["Node Type"] == "Hash Join" || node["Node Type"] == "Merge Join"
		if join && scan["Relation Name"] == table {
			joins = append(joins, node["Node Type"].(string))
		}
		joins = joinsOf(child, table, joins)
	}
	return joins
}

// scannedBelowGather reports whether a plan scans table below a Gather
// (by a parallel scan: the table's rows are divided among the workers).
func scannedBelowGather(node map[string]any, table string, gathered bool) bool {
	if node["Relation Name"] == table && gathered && node["Parallel Aware"] == true {
		return true
	}
	gathered = gathered || node["Node Type"] == "Gather" || node["Node Type"] == "Gather Merge"
	children, _ := node["Plans"].([]any)
	for _, c := range children {
		if scannedBelowGather(c.(map[string]any), table, gathered) {
			return true
		}
	}
	return false
}

package postgres

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/linksrus/linksrus/crawler/workqueue"
	"github.com/linksrus/linksrus/linkgraph"
)

// TestArrayEncodingMatchesPgx checks that the hand-written binary arrays
// are byte for byte what pgx writes for the same slices, and that other
// values and the text format still get pgx's own plans.
func TestArrayEncodingMatchesPgx(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ids := make([][16]byte, 300)
	for i := range ids {
		for j := range ids[i] {
			ids[i][j] = byte(rng.Uint32())
		}
	}
	times := []time.Time{
		{}, // the zero time, 2000 years before PostgreSQL's origin
		time.Date(1969, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(1999, 12, 31, 23, 59, 59, 123_456_789, time.FixedZone("x", -5*3600)),
		time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 25, 15, 4, 5, 999, time.Local),
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_000, time.UTC),
	}
	for range 100 {
		times = append(times, time.Unix(rng.Int64N(1<<40)-1<<39, rng.Int64N(1e9)))
	}
	texts := []string{"", "http://example.com/", "ünïcødé ✓", string(make([]byte, 3000)), "a\x00b"}

	for _, c := range []struct {
		name       string
		oid        uint32
		ours, pgxs any
	}{
		{"uuids", pgtype.UUIDArrayOID, uuidArray(ids), ids},
		{"one uuid", pgtype.UUIDArrayOID, uuidArray(ids[:1]), ids[:1]},
		{"no uuids", pgtype.UUIDArrayOID, uuidArray{}, [][16]byte{}},
		{"nil uuids", pgtype.UUIDArrayOID, uuidArray(nil), [][16]byte(nil)},
		{"times", pgtype.TimestamptzArrayOID, timeArray(times), times},
		{"no times", pgtype.TimestamptzArrayOID, timeArray{}, []time.Time{}},
		{"texts", pgtype.TextArrayOID, textArray(texts), texts},
		{"nil texts", pgtype.TextArrayOID, textArray(nil), []string(nil)},
	} {
		t.Run(c.name, func(t *testing.T) {
			ours := pgtype.NewMap()
			registerArrayCodecsIn(ours)
			plan := ours.PlanEncode(c.oid, pgtype.BinaryFormatCode, c.ours)
			if _, ok := plan.(arrayPlan); !ok {
				t.Fatalf("plan for %T is %T, not the hand-written one", c.ours, plan)
			}
			got, err := plan.Encode(c.ours, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := pgtype.NewMap().Encode(c.oid, pgtype.BinaryFormatCode, c.pgxs, nil)
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (want == nil) || !bytes.Equal(got, want) {
				t.Fatalf("encoded %d bytes (nil %v), pgx %d (nil %v); first difference at %d",
					len(got), got == nil, len(want), want == nil, firstDiff(got, want))
			}
			// Plain slices, and the text format, are left to pgx.
			if p := ours.PlanEncode(c.oid, pgtype.BinaryFormatCode, c.pgxs); isOurs(p) {
				t.Errorf("plain %T encoded by the hand-written plan", c.pgxs)
			}
			if p := ours.PlanEncode(c.oid, pgtype.TextFormatCode, c.ours); isOurs(p) {
				t.Errorf("text format of %T encoded by the hand-written plan", c.ours)
			}
		})
	}
	// A type goes only to its own array type's codec.
	m := pgtype.NewMap()
	registerArrayCodecsIn(m)
	if isOurs(m.PlanEncode(pgtype.TextArrayOID, pgtype.BinaryFormatCode, uuidArray(ids))) {
		t.Error("uuidArray encoded as TEXT[] by the hand-written plan")
	}
}

func isOurs(p pgtype.EncodePlan) bool {
	_, ok := p.(arrayPlan)
	return ok
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestQueryModesWithoutParameterTypes runs the graph's and the queue's
// array statements in the query modes that send no parameter types, where
// pgx picks an encoding from the Go type alone.
func TestQueryModesWithoutParameterTypes(t *testing.T) {
	dsn := testDatabase(t)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	for _, mode := range []string{"simple_protocol", "exec"} {
		t.Run(mode, func(t *testing.T) {
			g, err := Open(t.Context(), dsn+sep+"default_query_exec_mode="+mode, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			links := []*linkgraph.Link{{URL: "http://modes.test/" + mode + "/a"}, {URL: "http://modes.test/" + mode + "/b", RetrievedAt: time.Now()}}
			if err := g.UpsertLinks(links); err != nil {
				t.Fatal(err)
			}
			g.known.forget() // the ends are looked up too
			if err := g.UpsertEdges([]*linkgraph.Edge{{Src: links[0].ID, Dst: links[1].ID}}); err != nil {
				t.Fatal(err)
			}
			host := "modes.test." + mode
			q := g.WorkQueue()
			if err := q.Enqueue(t.Context(), []workqueue.Link{{ID: links[0].ID, Host: host}}); err != nil {
				t.Fatal(err)
			}
			got, err := q.Pull(t.Context(), host, nil, 10)
			if err != nil || len(got) != 1 || got[0].ID != links[0].ID {
				t.Fatalf("Pull = %v, %v", got, err)
			}
			if err := q.Done(t.Context(), []uuid.UUID{got[0].ID}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

package pgtest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"

	"github.com/linksrus/linksrus/internal/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestDatabaseIsUsableAndOwn(t *testing.T) {
	a := pgtest.Database(t, "pgtest")
	b := pgtest.Database(t, "pgtest")
	if a == b {
		t.Fatalf("two calls returned the same database %s", a)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 = %d, %v", one, err)
	}
}

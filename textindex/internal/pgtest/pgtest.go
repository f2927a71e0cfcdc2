// Package pgtest gives tests and benchmarks a PostgreSQL database of their
// own on the server named by LINKSRUS_TEST_PG, so that packages and test
// runs can share one server in parallel.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// NewDatabase creates a uniquely named database and returns its URL; the
// database is dropped when the test ends. Without LINKSRUS_TEST_PG the test
// is skipped, unless LINKSRUS_REQUIRE_PG=1, when it fails: CI must not pass
// by silently skipping.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	base := os.Getenv("LINKSRUS_TEST_PG")
	if base == "" {
		if os.Getenv("LINKSRUS_REQUIRE_PG") == "1" {
			tb.Fatal("LINKSRUS_REQUIRE_PG=1 but LINKSRUS_TEST_PG is not set")
		}
		tb.Skip("PostgreSQL tests skipped: set LINKSRUS_TEST_PG (e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)")
	}
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("LINKSRUS_TEST_PG: %v", err)
	}
	var buf [6]byte
	_, _ = rand.Read(buf[:])
	name := "textindex_test_" + hex.EncodeToString(buf[:])

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		tb.Fatalf("connect to LINKSRUS_TEST_PG: %v", err)
	}
	defer admin.Close(ctx)
	// The name is ours and made of [a-z0-9_], so it needs no quoting.
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		tb.Fatalf("create test database: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin, err := pgx.Connect(ctx, base)
		if err != nil {
			tb.Errorf("drop test database %s: connect: %v", name, err)
			return
		}
		defer admin.Close(ctx)
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			tb.Errorf("drop test database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

// Package pgtest gives tests a PostgreSQL database of their own on the
// server named by the LINKSRUS_TEST_PG environment variable (Database), or
// a throwaway server of their own, for the faults a shared server must not
// see (StartCluster).
//
// Tests skip, saying why, when the variable is unset, unless
// LINKSRUS_REQUIRE_PG=1 (as in CI), where a missing server is a failure:
// the PostgreSQL backends must never pass CI by skipping.
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

// Environment variables read by Database.
const (
	EnvDSN     = "LINKSRUS_TEST_PG"
	EnvRequire = "LINKSRUS_REQUIRE_PG"
)

// Database creates a uniquely named database, drops it when the test ends
// and returns its URL. prefix names the database's owner for anyone looking
// at the server (e.g. "linkgraph").
func Database(t testing.TB, prefix string) string {
	t.Helper()
	baseDSN := os.Getenv(EnvDSN)
	if baseDSN == "" {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("%s=1 but %s is unset: the PostgreSQL tests must run", EnvRequire, EnvDSN)
		}
		t.Skipf("PostgreSQL tests skipped: set %s=postgres://user@127.0.0.1:5432/postgres?sslmode=disable to run them", EnvDSN)
	}
	u, err := url.Parse(baseDSN)
	if err != nil {
		t.Fatalf("%s: %v", EnvDSN, err)
	}
	var suffix [8]byte
	_, _ = rand.Read(suffix[:])
	name := prefix + "_test_" + hex.EncodeToString(suffix[:])
	if err := execSQL(baseDSN, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		if err := execSQL(baseDSN, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

func execSQL(dsn, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

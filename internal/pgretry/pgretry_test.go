package pgretry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestRetryTellsLostConnectionsFromFailures: a statement is sent again
// when its connection was lost (a server restarting, a connection refused
// or cut), for up to lostFor, and when it conflicted, up to MaxConflicts;
// never when the statement itself failed or the caller gave up.
func TestRetryTellsLostConnectionsFromFailures(t *testing.T) {
	for _, c := range []struct {
		err   error
		again bool
	}{
		{&pgconn.PgError{Code: "57P01"}, true}, // admin_shutdown: a restart
		{&pgconn.PgError{Code: "57P03"}, true}, // cannot_connect_now: starting up
		{&pgconn.PgError{Code: "08006"}, true}, // connection_failure
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), true},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{io.ErrUnexpectedEOF, true},
		{&pgconn.PgError{Code: "40001"}, true},  // serialization_failure
		{&pgconn.PgError{Code: "23505"}, false}, // unique_violation
		{&pgconn.PgError{Code: "42P01"}, false}, // undefined_table
		{errors.New("bad input"), false},
	} {
		calls := 0
		err := Do(context.Background(), func(context.Context) error {
			calls++
			if calls == 1 {
				return c.err
			}
			return nil
		})
		if again := calls == 2 && err == nil; again != c.again {
			t.Errorf("%v: sent %d times (err %v), want sent again %v", c.err, calls, err, c.again)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := Do(ctx, func(context.Context) error {
		calls++
		cancel()
		return fmt.Errorf("read: %w", syscall.ECONNRESET)
	})
	if calls != 1 || err == nil {
		t.Errorf("after the caller gave up: %d calls, %v; want one, and its error", calls, err)
	}
}

func TestConflictsGiveUp(t *testing.T) {
	conflict := &pgconn.PgError{Code: "40001"}
	calls := 0
	err := Do(t.Context(), func(context.Context) error { calls++; return conflict })
	if !errors.Is(err, conflict) || calls != MaxConflicts {
		t.Fatalf("endless conflicts: %v after %d calls, want the conflict after %d", err, calls, MaxConflicts)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := Do(ctx, func(context.Context) error { return conflict }); !errors.Is(err, context.Canceled) {
		t.Fatalf("Do with a cancelled context = %v, want context.Canceled", err)
	}
}

// Conflicts, used to open a store, says at once that the server cannot be
// reached.
func TestConflictsDoesNotWaitForAServer(t *testing.T) {
	calls := 0
	err := Conflicts(t.Context(), func(context.Context) error {
		calls++
		return fmt.Errorf("dial: %w", syscall.ECONNREFUSED)
	})
	if err == nil || calls != 1 {
		t.Fatalf("Conflicts on a refused connection: %d calls, %v; want one, and its error", calls, err)
	}
}

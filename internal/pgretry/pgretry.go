// Package pgretry runs the statements of the PostgreSQL stores (the graph's
// and the text index's) again when the database says a retry will do:
// a conflict with another transaction, or a connection lost to a server
// restarting or a network failing, so that a crawl waits through those
// instead of failing.
package pgretry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/linksrus/linksrus/internal/ctxtime"
)

// MaxConflicts bounds the attempts of an operation that keeps conflicting
// with others (serialization failures, deadlocks), so that a pathological
// hot spot surfaces as an error instead of a hang.
const MaxConflicts = 10

// LostFor bounds how long an operation whose connection was lost is tried
// again: long enough for a server restart or a short network failure.
const LostFor = 30 * time.Second

// Conflict reports whether err is a transient conflict that the database
// asks the client to retry.
func Conflict(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01")
}

// ConnectionLost reports whether err says the operation's connection was
// lost or could not be had: the server shutting down or starting up, a
// connection exception, a refused or broken connection.
func ConnectionLost(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || // connection_exception
			pgErr.Code == "57P01" || // admin_shutdown
			pgErr.Code == "57P02" || // crash_shutdown
			pgErr.Code == "57P03" // cannot_connect_now
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) || pgconn.SafeToRetry(err) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}

// Do runs op until it succeeds, fails for good, or ctx ends, backing off
// exponentially with jitter between attempts: up to MaxConflicts times
// while it conflicts, and for up to LostFor while its connection is lost.
// op must come to the same when run again after a loss, even if its
// first run took effect (an upsert, a delete, a transaction).
func Do(ctx context.Context, op func(context.Context) error) error {
	return do(ctx, op, true)
}

// Conflicts is Do for an operation that must fail at once when the server
// cannot be reached (opening a store: a wrong address is said at once).
func Conflicts(ctx context.Context, op func(context.Context) error) error {
	return do(ctx, op, false)
}

func do(ctx context.Context, op func(context.Context) error, lost bool) error {
	backoff := 4 * time.Millisecond
	var lostSince time.Time
	for attempt := 1; ; attempt++ {
		err := op(ctx)
		if err == nil {
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("%w (after: %w)", cerr, err)
		}
		switch {
		case Conflict(err):
			if attempt >= MaxConflicts {
				return err
			}
		case lost && ConnectionLost(err):
			if lostSince.IsZero() {
				lostSince = time.Now()
			}
			if time.Since(lostSince) >= LostFor {
				return fmt.Errorf("%w (connection lost for %v)", err, LostFor)
			}
		default:
			return err
		}
		sleep := backoff/2 + rand.N(backoff)
		backoff = min(2*backoff, time.Second)
		if cerr := ctxtime.Sleep(ctx, sleep); cerr != nil {
			return fmt.Errorf("%w (retrying after: %w)", cerr, err)
		}
	}
}

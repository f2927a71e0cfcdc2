package postgres

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
)

// countingServer listens on loopback, counts the connections it accepts
// and closes them; it returns a DSN naming it.
func countingServer(t *testing.T) (dsn string, accepted *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = new(atomic.Int64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return "postgres://nobody@" + ln.Addr().String() + "/none?sslmode=disable&connect_timeout=2", accepted
}

// A context that is already done connects to nothing.
func TestOpenCanceledContext(t *testing.T) {
	dsn, accepted := countingServer(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	g, err := Open(ctx, dsn, Options{})
	if !errors.Is(err, context.Canceled) {
		if g != nil {
			g.Close()
		}
		t.Fatalf("Open with a canceled context: %v, want context.Canceled", err)
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("Open with a canceled context made %d connections", n)
	}
}

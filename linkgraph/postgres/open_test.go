package postgres

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// silentServer listens on loopback, accepts connections, counts them and
// never answers; it returns a DSN naming it.
func silentServer(t *testing.T) (dsn string, accepted *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = new(atomic.Int64)
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "postgres://nobody@" + ln.Addr().String() + "/none?sslmode=disable", accepted
}

// A context that is already done connects to nothing.
func TestOpenCanceledContext(t *testing.T) {
	dsn, accepted := silentServer(t)
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

// Open's wait for a server that does not answer ends with its context.
func TestOpenEndsWithContext(t *testing.T) {
	dsn, accepted := silentServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	g, err := Open(ctx, dsn, Options{})
	if !errors.Is(err, context.DeadlineExceeded) {
		if g != nil {
			g.Close()
		}
		t.Fatalf("Open of a silent server: %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Open of a silent server took %v after its context ended at 200ms", d)
	}
	if accepted.Load() == 0 {
		t.Error("Open never reached the server")
	}
}

// Open has the shape every storing backend's constructor shares (see the
// linkgraph package documentation).
var _ func(context.Context, string, Options) (*Graph, error) = Open

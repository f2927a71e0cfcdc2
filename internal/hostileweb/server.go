package hostileweb

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// ErrClosed is returned (wrapped) when a handler tries to take over a
// connection after [Server.Close] has begun.
var ErrClosed = errors.New("hostileweb: server closed")

// Server is a running hostile web site: an HTTP server and a silent TCP
// listener, both on 127.0.0.1 with ports chosen by the kernel.
type Server struct {
	opts   Options
	http   *httptest.Server
	silent *silentListener

	bomb   *gzipBomb
	robots []byte
	png    []byte

	// ctx is the base context of every request; Close cancels it so that
	// handlers blocked on a timer or waiting for the client give up at once.
	ctx    context.Context
	cancel context.CancelFunc

	// handlers counts running handlers. httptest waits for its connections
	// but forgets hijacked ones, so a handler that hijacked its connection
	// would outlive Close without this.
	handlers sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	hijacked map[net.Conn]struct{}

	closeOnce sync.Once
}

// Start builds the traps, starts both listeners and returns the running
// server. Call Close when done.
func Start(opts Options) (*Server, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	bomb, err := newGzipBomb(o.GzipBombSize)
	if err != nil {
		return nil, fmt.Errorf("hostileweb: build gzip bomb: %w", err)
	}
	png, err := newPNG()
	if err != nil {
		return nil, fmt.Errorf("hostileweb: build image: %w", err)
	}
	s := &Server{
		opts:     o,
		bomb:     bomb,
		robots:   randomBytes(o.Seed, o.RobotsBytes),
		png:      png,
		hijacked: make(map[net.Conn]struct{}),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())

	silent, err := listenSilent(o.MaxSilentConns)
	if err != nil {
		s.cancel()
		return nil, fmt.Errorf("hostileweb: start silent listener: %w", err)
	}
	s.silent = silent

	// httptest would fall back to ::1; the suite promises 127.0.0.1 only.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.silent.close()
		s.cancel()
		return nil, fmt.Errorf("hostileweb: listen: %w", err)
	}
	hs := &httptest.Server{
		Listener: ln,
		Config: &http.Server{
			Handler:           s.track(s.mux()),
			BaseContext:       func(net.Listener) context.Context { return s.ctx },
			ReadHeaderTimeout: 10 * time.Second,
			// Broken clients are the point of this server; their errors are noise.
			ErrorLog: log.New(io.Discard, "", 0),
		},
	}
	// Set before Start: handlers read it (through URL) as soon as they run.
	s.http = hs
	hs.Start()
	return s, nil
}

// URL is the base URL of the HTTP server, such as "http://127.0.0.1:41234",
// without a trailing slash.
func (s *Server) URL() string { return s.http.URL }

// SilentURL is the URL of the silent listener, which accepts TCP connections
// and never answers them, such as "http://127.0.0.1:41235/".
func (s *Server) SilentURL() string { return "http://" + s.silent.addr() + "/" }

// Options returns the options in force, with defaults filled in.
func (s *Server) Options() Options { return s.opts }

// Close stops both listeners, cuts every connection, including hijacked and
// silent ones, and waits until every handler has returned. After Close the
// server owns no goroutine. Close is safe to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		conns := s.hijacked
		s.hijacked = nil
		s.mu.Unlock()

		s.cancel()
		for c := range conns {
			_ = c.Close() // unblocks a handler stuck writing to a client that stopped reading
		}
		s.silent.close()
		// Active connections are cut too: a handler blocked in Write to a
		// client that stopped reading notices nothing else.
		s.http.CloseClientConnections()
		s.http.Close()
		s.handlers.Wait()
	})
}

// track counts running handlers so that Close can wait for them, and turns
// requests away once Close has begun.
func (s *Server) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			w.Header().Set("Connection", "close")
			http.Error(w, "server closing", http.StatusServiceUnavailable)
			return
		}
		s.handlers.Add(1)
		s.mu.Unlock()
		defer s.handlers.Done()
		next.ServeHTTP(w, r)
	})
}

// hijack takes the raw connection over from net/http and registers it so
// that Close can cut it. The caller must call release when done.
func (s *Server) hijack(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, nil, fmt.Errorf("hostileweb: hijack connection: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = c.Close()
		return nil, nil, fmt.Errorf("hostileweb: hijack connection: %w", ErrClosed)
	}
	s.hijacked[c] = struct{}{}
	return c, brw, nil
}

// release forgets and closes a connection obtained from hijack.
func (s *Server) release(c net.Conn) {
	s.mu.Lock()
	delete(s.hijacked, c)
	s.mu.Unlock()
	_ = c.Close()
}

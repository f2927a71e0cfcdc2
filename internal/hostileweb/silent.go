package hostileweb

import (
	"errors"
	"net"
	"sync"
	"time"
)

// silentListener accepts TCP connections and never reads from or writes to
// them, like a server whose application has wedged. It needs no goroutine per
// connection: the kernel completes the handshake and buffers the request.
type silentListener struct {
	ln    net.Listener
	limit int

	mu     sync.Mutex
	conns  []net.Conn // oldest first
	closed bool

	stop chan struct{} // closed by close
	done chan struct{} // closed when the accept loop has returned
}

func listenSilent(limit int) (*silentListener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l := &silentListener{ln: ln, limit: limit, stop: make(chan struct{}), done: make(chan struct{})}
	go l.acceptLoop()
	return l, nil
}

func (l *silentListener) addr() string { return l.ln.Addr().String() }

func (l *silentListener) acceptLoop() {
	defer close(l.done)
	for {
		c, err := l.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors or similar: back off instead of spinning,
			// but stay responsive to close.
			select {
			case <-l.stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		l.hold(c)
	}
}

// hold keeps c open, closing the oldest held connection beyond the cap.
func (l *silentListener) hold(c net.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		_ = c.Close()
		return
	}
	l.conns = append(l.conns, c)
	if len(l.conns) > l.limit {
		_ = l.conns[0].Close()
		l.conns[0] = nil
		l.conns = l.conns[1:]
	}
}

// close stops accepting, closes every held connection and waits for the
// accept loop to return.
func (l *silentListener) close() {
	l.mu.Lock()
	l.closed = true
	conns := l.conns
	l.conns = nil
	l.mu.Unlock()
	close(l.stop)
	_ = l.ln.Close()
	for _, c := range conns {
		_ = c.Close()
	}
	<-l.done
}

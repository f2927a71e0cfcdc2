package hostileweb_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linksrus/linksrus/internal/hostileweb"
	"go.uber.org/goleak"
)

// TestCloseEndsEverything closes the server while clients sit in every kind
// of stuck request, and checks that Close returns promptly, that the clients
// are released and that no goroutine is left.
func TestCloseEndsEverything(t *testing.T) {
	before := goleak.IgnoreCurrent()
	s, err := hostileweb.Start(hostileweb.Options{})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	tr := &http.Transport{DisableCompression: true}
	c := &http.Client{Transport: tr} // no timeout: only Close may end these requests

	// Responses whose bodies nobody reads, so the handlers are blocked in
	// Write or waiting on a timer when Close comes.
	var bodies []io.ReadCloser
	for _, p := range []string{
		hostileweb.PathDrip, hostileweb.PathEndless, hostileweb.PathGzipBomb,
		hostileweb.PathManyLinks, hostileweb.PathDeepNesting,
	} {
		resp, err := c.Get(s.URL() + p)
		if err != nil {
			t.Fatalf("GET %s: %v", p, err)
		}
		bodies = append(bodies, resp.Body)
	}
	// A raw client that reads nothing of the huge headers.
	hh, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "http://"))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer hh.Close()
	if _, err := hh.Write([]byte("GET " + hostileweb.PathHugeHeaders + " HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatalf("write: %v", err)
	}
	if _, err := bufio.NewReader(hh).ReadString('\n'); err != nil {
		t.Fatalf("read status line: %v", err)
	}
	// Requests waiting on the silent listener.
	var silent sync.WaitGroup
	silentErrs := make(chan error, 3)
	for range 3 {
		silent.Go(func() {
			_, err := c.Get(s.SilentURL())
			silentErrs <- err
		})
	}

	time.Sleep(100 * time.Millisecond) // let the silent requests connect
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return within 10s")
	}

	silent.Wait()
	close(silentErrs)
	for err := range silentErrs {
		if err == nil {
			t.Error("silent request succeeded, want an error once the server closed")
		}
	}
	for _, b := range bodies {
		_, _ = io.Copy(io.Discard, b) // must end, with an error or EOF
		b.Close()
	}
	if _, err := c.Get(s.URL()); err == nil {
		t.Error("GET after Close succeeded")
	}
	hh.Close()
	tr.CloseIdleConnections()
	goleak.VerifyNone(t, before)
}

func TestCloseTwice(t *testing.T) {
	s, err := hostileweb.Start(smallOptions)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	s.Close()
	s.Close()
}

// TestHandlersEndWhenClientGoesAway cancels requests mid-body and checks
// that the server's handlers return without waiting for Close.
func TestHandlersEndWhenClientGoesAway(t *testing.T) {
	s := start(t, hostileweb.Options{})
	running := goleak.IgnoreCurrent() // the server's own accept loops
	tr := &http.Transport{DisableCompression: true}
	c := &http.Client{Transport: tr}
	for _, p := range []string{hostileweb.PathDrip, hostileweb.PathEndless, hostileweb.PathGzipBomb} {
		ctx, cancel := context.WithCancel(context.Background())
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+p, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", p, err)
		}
		if _, err := resp.Body.Read(make([]byte, 1)); err != nil {
			t.Fatalf("GET %s: first byte: %v", p, err)
		}
		cancel()
		resp.Body.Close()
	}
	tr.CloseIdleConnections()
	goleak.VerifyNone(t, running)
}

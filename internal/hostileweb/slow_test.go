package hostileweb_test

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/linksrus/linksrus/internal/hostileweb"
)

func TestDripSendsOneBytePerInterval(t *testing.T) {
	s := start(t, smallOptions)
	c := newClient(t, 5*time.Second)
	resp, err := c.Get(s.URL() + hostileweb.PathDrip)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	defer resp.Body.Close()
	wantContentType(t, resp, "text/html; charset=utf-8")
	began := time.Now()
	const n = 10
	got := make([]byte, n)
	for i := range got {
		if _, err := io.ReadFull(resp.Body, got[i:i+1]); err != nil {
			t.Fatalf("read byte %d: %v", i, err)
		}
	}
	// The first byte comes at once, then one per interval. The server's
	// interval clock starts before the response headers reach us (and so
	// before began), so up to one interval may already have passed: a
	// lower bound only, which a slow machine cannot break.
	if least := (n - 2) * smallOptions.DripInterval; time.Since(began) < least {
		t.Errorf("%d bytes took %v, want at least %v", n, time.Since(began), least)
	}
	if !strings.HasPrefix("<!doctype html>", string(got)) {
		t.Errorf("body starts %q, want the start of an HTML page", got)
	}
}

func TestDripDefaultOutlastsATotalTimeout(t *testing.T) {
	s := start(t, hostileweb.Options{})
	c := newClient(t, 1500*time.Millisecond)
	resp, err := c.Get(s.URL() + hostileweb.PathDrip)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("ReadAll error = %v, want a timeout", err)
	}
	// One byte at once and one a second: two, perhaps three in 1.5s.
	if len(body) < 1 || len(body) > 3 {
		t.Errorf("read %d bytes in 1.5s, want 1 to 3 at one byte a second", len(body))
	}
}

func TestEndlessNeverEnds(t *testing.T) {
	s := start(t, smallOptions)
	c := newClient(t, 30*time.Second)
	resp, err := c.Get(s.URL() + hostileweb.PathEndless)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	defer resp.Body.Close()
	if resp.ContentLength != -1 {
		t.Errorf("ContentLength = %d, want -1 (unknown)", resp.ContentLength)
	}
	const want = 32 << 20
	if n, err := io.CopyN(io.Discard, resp.Body, want); err != nil {
		t.Fatalf("after %d bytes: %v; want an endless body", n, err)
	}
}

func TestSilentAcceptsAndNeverAnswers(t *testing.T) {
	s := start(t, smallOptions)
	addr := strings.TrimSuffix(strings.TrimPrefix(s.SilentURL(), "http://"), "/")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET / HTTP/1.1\r\nHost: silent\r\n\r\n")); err != nil {
		t.Fatalf("write request: %v", err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	n, err := conn.Read(make([]byte, 1))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Read = %d, %v; want a timeout on an open connection", n, err)
	}

	c := newClient(t, 300*time.Millisecond)
	_, err = c.Get(s.SilentURL())
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("GET error = %v, want a timeout", err)
	}
}

func TestSilentClosesOldestBeyondCap(t *testing.T) {
	opts := smallOptions
	opts.MaxSilentConns = 2
	s := start(t, opts)
	addr := strings.TrimSuffix(strings.TrimPrefix(s.SilentURL(), "http://"), "/")
	var conns []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	_ = conns[0].SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := conns[0].Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Errorf("oldest connection: Read error = %v, want it closed by the server", err)
	}
	for i, c := range conns[1:] {
		_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); !isTimeout(err) {
			t.Errorf("connection %d: Read error = %v, want it still held open", i+1, err)
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

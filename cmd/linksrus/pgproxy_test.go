package main

import (
	"net"
	"net/url"
	"sync"
	"testing"
)

// partitionProxy is a TCP proxy between one crawl process and PostgreSQL
// that the test can partition: while partitioned, nothing crosses it in
// either direction (connections stay open, bytes wait, new connections
// are accepted and wait too), as when a network between two machines
// fails; healed, what waited goes through.
type partitionProxy struct {
	ln     net.Listener
	target string

	mu          sync.Mutex
	partitioned bool
	healed      *sync.Cond
}

// startPartitionProxy proxies to the host and port of dsn and returns the
// proxy and dsn rewritten to go through it.
func startPartitionProxy(t *testing.T, dsn string) (*partitionProxy, string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &partitionProxy{ln: ln, target: u.Host}
	p.healed = sync.NewCond(&p.mu)
	var wg sync.WaitGroup
	var conns sync.Map
	t.Cleanup(func() {
		ln.Close()
		p.setPartitioned(false)
		conns.Range(func(c, _ any) bool { c.(net.Conn).Close(); return true })
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			conns.Store(c, true)
			conns.Store(s, true)
			wg.Go(func() { p.pipe(s, c) })
			wg.Go(func() { p.pipe(c, s) })
		}
	})
	u.Host = ln.Addr().String()
	return p, u.String()
}

// pipe copies from src to dst, holding each read while partitioned.
func (p *partitionProxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			for p.partitioned {
				p.healed.Wait()
			}
			p.mu.Unlock()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *partitionProxy) setPartitioned(on bool) {
	p.mu.Lock()
	p.partitioned = on
	p.mu.Unlock()
	p.healed.Broadcast()
}

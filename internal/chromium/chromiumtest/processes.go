package chromiumtest

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
)

// Process is a running process of a browser.
type Process struct {
	PID int
	// Args are its command line's arguments, the program first.
	Args []string
}

// Main reports whether p is a browser's own process, not one of its
// helpers (renderers, zygotes, the GPU and network services, which have
// a --type).
func (p Process) Main() bool {
	for _, a := range p.Args {
		if bytes.HasPrefix([]byte(a), []byte("--type=")) {
			return false
		}
	}
	return true
}

// Processes lists the running processes (zombies left out) whose command
// line names dir: those of a browser started with TMPDIR=dir, where its
// profile goes.
func Processes(dir string) []Process {
	entries, _ := os.ReadDir("/proc")
	var out []Process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(b, []byte(dir)) || !Alive(pid) {
			continue
		}
		p := Process{PID: pid}
		for _, a := range bytes.Split(bytes.TrimRight(b, "\x00"), []byte{0}) {
			p.Args = append(p.Args, string(a))
		}
		out = append(out, p)
	}
	return out
}

// Alive reports whether process pid runs: it exists and is not a zombie.
func Alive(pid int) bool {
	st, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err == nil && !bytes.Contains(st, []byte(") Z "))
}

// CountConnections listens on addr, a loopback address, and counts the
// connections made to it, closing each: the listener a test points a
// page's requests at to prove that none leaves the browser. It returns
// host:port; the test skips when addr cannot be listened on.
func CountConnections(t testing.TB, addr string) (string, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	if err != nil {
		t.Skip(err)
	}
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String(), &n
}

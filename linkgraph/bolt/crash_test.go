package bolt

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
	bbolt "go.etcd.io/bbolt"
)

// crashChildEnv, when set, turns TestCrashSafety into the child process that
// writes to the database named by the variable until it is killed.
const crashChildEnv = "LINKGRAPH_BOLT_CRASH_CHILD"

const crashBatch = 50

// TestCrashSafety kills a writer with SIGKILL in the middle of its work and
// checks that every batch it reported committed is in the reopened store,
// whole, and that the file passes bbolt's consistency check.
func TestCrashSafety(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(t, path)
		return
	}
	path := filepath.Join(t.TempDir(), "graph.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashSafety$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("stdout pipe: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start child: %v", err)
	}
	killed := make(chan struct{})
	// The watchdog kills the child whatever happens, so that a stuck child
	// cannot outlive the test.
	watchdog := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
	defer watchdog.Stop()

	type committed struct {
		batch int
		id    uuid.UUID
		url   string
	}
	var reported []committed
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 || f[0] != "committed" {
			continue
		}
		var c committed
		if _, err := fmt.Sscan(f[1], &c.batch); err != nil {
			t.Fatalf("bad child line %q: %v", sc.Text(), err)
		}
		if c.id, err = uuid.Parse(f[2]); err != nil {
			t.Fatalf("bad child line %q: %v", sc.Text(), err)
		}
		c.url = f[3]
		reported = append(reported, c)
		if len(reported) == 120 {
			// Kill at a moment that is not aligned with a commit.
			time.Sleep(time.Duration(time.Now().UnixNano()%3000) * time.Microsecond)
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatalf("kill child: %v", err)
			}
			close(killed)
		}
	}
	werr := cmd.Wait()
	select {
	case <-killed:
	default:
		t.Fatalf("child ended before it was killed after %d batches: %v", len(reported), werr)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die of SIGKILL: %v", werr)
	}

	g, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatalf("reopen after SIGKILL: %v", err)
	}
	defer g.Close()
	err = g.db.view(func(tx *bbolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatalf("consistency check after SIGKILL: %v", err)
	}
	for _, c := range reported {
		l, err := g.FindLink(c.id)
		if err != nil {
			t.Fatalf("batch %d reported committed but link %s is missing: %v", c.batch, c.id, err)
		}
		if l.URL != c.url {
			t.Fatalf("link %s has URL %q, want %q", c.id, l.URL, c.url)
		}
		// The edges of the batch were committed before the line was
		// printed, so the whole batch must be there.
		it, err := g.Edges(c.id, uuid.Nil, time.Now().Add(time.Hour))
		if err != nil {
			t.Fatalf("Edges: %v", err)
		}
		n := 0
		for it.Next() && it.Edge().Src == c.id {
			n++
		}
		if err := it.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if n != crashBatch-1 {
			t.Fatalf("batch %d: %d of %d edges survived", c.batch, n, crashBatch-1)
		}
	}
	all, err := g.Links(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatalf("Links: %v", err)
	}
	defer all.Close()
	n := 0
	for all.Next() {
		n++
	}
	if err := all.Error(); err != nil {
		t.Fatalf("iterating after SIGKILL: %v", err)
	}
	if n%crashBatch != 0 || n < len(reported)*crashBatch {
		t.Fatalf("store holds %d links after %d reported batches of %d: a batch was torn", n, len(reported), crashBatch)
	}
	t.Logf("child reported %d batches; store holds %d links", len(reported), n)
}

// crashChild upserts batches of links and edges, printing the last link of
// each committed batch, until it is killed.
func crashChild(t *testing.T, path string) {
	g, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatalf("child: open: %v", err)
	}
	defer g.Close()
	for b := 0; b < 100000; b++ {
		links := make([]*linkgraph.Link, crashBatch)
		for i := range links {
			links[i] = &linkgraph.Link{URL: fmt.Sprintf("https://crash.example/%d/%d", b, i)}
		}
		if err := g.UpsertLinks(links); err != nil {
			t.Fatalf("child: upsert links: %v", err)
		}
		last := links[len(links)-1]
		edges := make([]*linkgraph.Edge, 0, crashBatch-1)
		for _, l := range links[:len(links)-1] {
			edges = append(edges, &linkgraph.Edge{Src: last.ID, Dst: l.ID})
		}
		if err := g.UpsertEdges(edges); err != nil {
			t.Fatalf("child: upsert edges: %v", err)
		}
		fmt.Fprintf(os.Stdout, "committed %d %s %s\n", b, last.ID, last.URL)
	}
}

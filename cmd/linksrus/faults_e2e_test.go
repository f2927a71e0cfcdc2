package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/linksrus/linksrus/internal/pgtest"
)

var crawledRE = regexp.MustCompile(`crawled (\d+) pages`)

// Scenario (a) of the shared crawl's fault suite, with no fault: a host
// whose robots.txt answers 503 twice, then its rules, crawled by three
// processes. Every page is fetched once, per-host limits and delays hold
// across the processes, the summaries add up, and no process reports a
// page robots-unreachable:
// every robots.txt answered in the end, and a page another process crawled
// is never this one's error. (With the site's redirects host on as well,
// site.redirects, a redirecting URL was once fetched by two processes in
// about 20 runs: not understood yet, see issue #26's notes.)
func TestSharedCrawlFlakyRobotsNoFault(t *testing.T) {
	dsn := pgtest.Database(t, "cmd")
	const hosts, pages = 4, 40
	site := newHostsSite(t, hosts, pages, 2*time.Millisecond)
	site.mu.Lock()
	site.cross, site.robots503 = true, 2
	site.mu.Unlock()
	var cmds []*exec.Cmd
	var outs, errs []*bytes.Buffer
	for i := range 3 {
		c, o, e := sharedCrawl(t, dsn, fmt.Sprint("w", i), site,
			"--per-host", "1", "--delay", "100ms", "--retries", "3", "--idle", "4s",
			"--lease-ttl", "30s", "--timeout", "30s")
		cmds, outs, errs = append(cmds, c), append(outs, o), append(errs, e)
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("process w%d: %v\n%s%s", i, err, outs[i], errs[i])
		}
	}
	// The summaries add up: the pages reported crawled by all processes
	// together are the pages the servers answered.
	crawled := 0
	for i := range cmds {
		m := crawledRE.FindStringSubmatch(outs[i].String())
		if m == nil {
			t.Fatalf("process w%d printed no summary:\n%s", i, outs[i])
		}
		n, _ := strconv.Atoi(m[1])
		crawled += n
	}
	if crawled != hosts*pages {
		t.Errorf("the processes reported %d pages crawled in all, want %d", crawled, hosts*pages)
	}
	for i := range cmds {
		if out := outs[i].String() + errs[i].String(); strings.Contains(out, "robots") && strings.Contains(out, "unreachable") {
			t.Errorf("process w%d reports robots.txt unreachable:\n%s", i, out)
		}
	}
	count := make(map[string]int)
	by := make(map[string][]string)
	for _, r := range site.gets() {
		count[r.host+r.path]++
		by[r.host+r.path] = append(by[r.host+r.path], fmt.Sprintf("%s at %s", r.worker, r.start.Format("05.000")))
	}
	if len(count) != hosts*pages {
		t.Errorf("%d pages fetched, want %d", len(count), hosts*pages)
	}
	for p, n := range count {
		if n != 1 {
			t.Errorf("%s fetched %d times: %v", p, n, by[p])
		}
	}
	site.checkPolite(t, 1, 100*time.Millisecond)
}

// Scenario (c) of the fault suite: one of three processes is stopped
// (SIGSTOP) mid-crawl for longer than its lease, then continued. The
// others take its hosts over once its leases expire; on waking it learns
// that its hosts are gone, ends what it had under way there, and goes on
// with the crawl. Every page is fetched, per-host limits and delays hold
// across the processes, a page is fetched twice only if the stopped
// process had it in flight when stopped (at most one per host it held,
// --per-host 1), and the summaries add up.
func TestSharedCrawlStoppedPastItsLease(t *testing.T) {
	dsn := pgtest.Database(t, "cmd")
	const hosts, pages = 4, 40
	site := newHostsSite(t, hosts, pages, 2*time.Millisecond)
	site.mu.Lock()
	site.cross = true
	site.mu.Unlock()
	var cmds []*exec.Cmd
	var outs, errs []*bytes.Buffer
	for i := range 3 {
		c, o, e := sharedCrawl(t, dsn, fmt.Sprint("w", i), site,
			"--per-host", "1", "--delay", "100ms", "--retries", "3", "--idle", "4s",
			"--lease-ttl", "2s", "--timeout", "30s")
		cmds, outs, errs = append(cmds, c), append(outs, o), append(errs, e)
	}
	stopped := func() (n int) {
		for _, r := range site.gets() {
			if r.worker == "w0" {
				n++
			}
		}
		return n
	}
	for deadline := time.Now().Add(30 * time.Second); stopped() < 10 && time.Now().Before(deadline); {
		time.Sleep(2 * time.Millisecond)
	}
	if err := cmds[0].Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// What it had in flight: fetched by it, not stored as retrieved.
	inFlight := make(map[string]bool)
	held := make(map[string]bool)
	notRetrieved := notRetrievedURLs(t, dsn)
	for _, r := range site.gets() {
		if r.worker == "w0" && notRetrieved["http://"+r.host+r.path] {
			inFlight[r.host+r.path] = true
			held[r.host] = true
		}
	}
	time.Sleep(5 * time.Second) // past its 2 s lease: its hosts change hands
	if err := cmds[0].Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("process w%d: %v\n%s%s", i, err, outs[i], errs[i])
		}
	}
	count := make(map[string]int)
	for _, r := range site.gets() {
		count[r.host+r.path]++
	}
	if len(count) != hosts*pages {
		t.Errorf("%d pages fetched, want %d", len(count), hosts*pages)
	}
	twice := 0
	for p, n := range count {
		if n > 1 {
			twice++
			if n > 2 || !inFlight[p] {
				t.Errorf("%s fetched %d times, though not in flight in the stopped process (%v)", p, n, inFlight)
			}
		}
	}
	if twice > len(held) {
		t.Errorf("%d pages fetched twice, want at most one per host the stopped process held (%d)", twice, len(held))
	}
	crawled := 0
	for i := range cmds {
		m := crawledRE.FindStringSubmatch(outs[i].String())
		if m == nil {
			t.Fatalf("process w%d printed no summary:\n%s", i, outs[i])
		}
		n, _ := strconv.Atoi(m[1])
		crawled += n
		if out := outs[i].String() + errs[i].String(); strings.Contains(out, "robots") && strings.Contains(out, "unreachable") {
			t.Errorf("process w%d reports robots.txt unreachable:\n%s", i, out)
		}
	}
	// The summaries add up: every page answered is reported crawled by
	// one process, and by two only if both fetched it.
	if crawled < hosts*pages || crawled > hosts*pages+twice {
		t.Errorf("the processes reported %d pages crawled in all, want %d (+ at most %d fetched twice)", crawled, hosts*pages, twice)
	}
	site.checkPolite(t, 1, 100*time.Millisecond)
	t.Logf("stopped with %d pages in flight on %d hosts; %d fetched twice\n%s%s%s", len(inFlight), len(held), twice, outs[0], outs[1], outs[2])
}

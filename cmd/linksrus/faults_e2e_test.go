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
// is never this one's error. The second host also links every page N to
// /r/N, which redirects to the first host's page N: a redirect hop to a
// host another process may hold is fetched once too, and its target
// counted once.
func TestSharedCrawlFlakyRobotsNoFault(t *testing.T) {
	dsn := pgtest.Database(t, "cmd")
	const hosts, pages = 4, 40
	site := newHostsSite(t, hosts, pages, 2*time.Millisecond)
	site.mu.Lock()
	site.cross, site.robots503, site.redirects = true, 2, true
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
	// together are the pages the servers answered with a 200 (the /r/N
	// redirects are not pages).
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
	if len(count) != hosts*pages+pages {
		t.Errorf("%d URLs fetched, want %d pages and %d redirects", len(count), hosts*pages, pages)
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
// with the crawl (faultRun.check says what must hold).
func TestSharedCrawlStoppedPastItsLease(t *testing.T) {
	r := startFaultRun(t)
	r.waitForVictim(10)
	if err := r.cmds[0].Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	r.noteInFlight(false)
	time.Sleep(5 * time.Second) // past its 2 s lease: its hosts change hands
	if err := r.cmds[0].Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	// Stopped, it fetched nothing more: at most its requests under way,
	// one per host it held (--per-host 1), are fetched again.
	r.check(len(r.held))
}

// Scenario (d) of the fault suite: the network between one of three
// processes and PostgreSQL fails for longer than its lease (its
// statements and their answers wait, as in a partition), then heals. The
// process's requests on its hosts end with their lease terms; the others
// take the hosts over; once healed it learns they are gone and goes on.
//
// Unlike a stopped process, a cut one goes on fetching its hosts' pages
// until 3/4 of its lease from its last renewal (it cannot tell a slow
// database from a lost one sooner), and cannot store them: those pages
// are in flight too, and the others fetch them again. At --delay 100ms
// and --lease-ttl 2s that is at most 15 starts per host it held, plus
// the one under way.
func TestSharedCrawlCutFromItsDatabase(t *testing.T) {
	dsn := pgtest.Database(t, "cmd")
	proxy, viaProxy := startPartitionProxy(t, dsn)
	r := startFaultRunOn(t, dsn, viaProxy)
	r.waitForVictim(10)
	proxy.setPartitioned(true)
	cut := time.Now()
	r.noteInFlight(false)
	time.Sleep(5 * time.Second) // past its 2 s lease
	// Also in flight: what it fetched while cut, which it could not store.
	after := 0
	for _, q := range r.site.gets() {
		if q.worker == "w0" && q.start.After(cut) {
			r.inFlight[q.host+q.path] = true
			r.held[q.host] = true
			after++
		}
	}
	proxy.setPartitioned(false)
	t.Logf("the victim started %d requests after the cut", after)
	r.check(len(r.held) * (15 + 1))
}

// Scenario (e) of the fault suite: PostgreSQL restarts mid-crawl (a
// throwaway server of the test's own). Every process's statements fail
// while it is down and are sent again once it is back; nobody loses a
// lease it renews in time, nothing is lost, the crawl goes on.
func TestSharedCrawlSurvivesDatabaseRestart(t *testing.T) {
	cluster, dsn := pgtest.StartCluster(t)
	r := startFaultRunOn(t, dsn, dsn)
	r.waitForVictim(10)
	r.noteInFlight(true)
	cluster.Restart()
	r.check(len(r.held))
}

// faultRun is three crawl processes of one shared crawl (w0, the victim
// of the fault, and w1, w2), on four hosts of 40 pages linking across
// hosts, --per-host 1, --delay 100ms and --lease-ttl 2s.
type faultRun struct {
	t            *testing.T
	dsn          string
	site         *hostsSite
	hosts, pages int
	cmds         []*exec.Cmd
	outs, errs   []*bytes.Buffer
	// inFlight: the pages the victim had fetched and not stored as
	// retrieved when the fault began; held: their hosts.
	inFlight, held map[string]bool
}

// startFaultRun starts the run on a database of its own.
func startFaultRun(t *testing.T) *faultRun {
	dsn := pgtest.Database(t, "cmd")
	return startFaultRunOn(t, dsn, dsn)
}

// startFaultRunOn starts the run on dsn, the victim reaching it through
// victimDSN.
func startFaultRunOn(t *testing.T, dsn, victimDSN string) *faultRun {
	r := &faultRun{t: t, dsn: dsn, hosts: 4, pages: 40}
	r.site = newHostsSite(t, r.hosts, r.pages, 2*time.Millisecond)
	r.site.mu.Lock()
	r.site.cross = true
	r.site.mu.Unlock()
	for i := range 3 {
		d := dsn
		if i == 0 {
			d = victimDSN
		}
		c, o, e := sharedCrawl(t, d, fmt.Sprint("w", i), r.site,
			"--per-host", "1", "--delay", "100ms", "--retries", "3", "--idle", "4s",
			"--lease-ttl", "2s", "--timeout", "30s")
		r.cmds, r.outs, r.errs = append(r.cmds, c), append(r.outs, o), append(r.errs, e)
	}
	return r
}

// waitForVictim waits until the victim has fetched n pages.
func (r *faultRun) waitForVictim(n int) {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		got := 0
		for _, q := range r.site.gets() {
			if q.worker == "w0" {
				got++
			}
		}
		if got >= n {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	r.t.Fatalf("the victim never fetched %d pages", n)
}

// noteInFlight notes what the victim (or, with all, every process) has
// in flight as the fault begins.
func (r *faultRun) noteInFlight(all bool) {
	r.inFlight, r.held = make(map[string]bool), make(map[string]bool)
	notRetrieved := notRetrievedURLs(r.t, r.dsn, time.Now())
	for _, q := range r.site.gets() {
		if (all || q.worker == "w0") && notRetrieved["http://"+q.host+q.path] {
			r.inFlight[q.host+q.path] = true
			r.held[q.host] = true
		}
	}
}

// check waits for the processes and asserts what the fault suite
// promises: every page fetched; a page fetched twice only if the victim
// had it in flight (noteInFlight), and at most maxTwice such pages; per-host limits and delays
// across the processes together; no robots-unreachable (every robots.txt
// answers); and summaries that add up: the pages reported crawled by all
// processes are the pages answered, a page counted twice only if it was
// fetched twice.
func (r *faultRun) check(maxTwice int) {
	t := r.t
	t.Helper()
	for i, c := range r.cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("process w%d: %v\n%s%s", i, err, r.outs[i], r.errs[i])
		}
	}
	count := make(map[string]int)
	for _, q := range r.site.gets() {
		count[q.host+q.path]++
	}
	if len(count) != r.hosts*r.pages {
		t.Errorf("%d pages fetched, want %d", len(count), r.hosts*r.pages)
	}
	twice := 0
	for p, n := range count {
		if n > 1 {
			twice++
			if n > 2 || !r.inFlight[p] {
				t.Errorf("%s fetched %d times, though not in flight in the victim (%v)", p, n, r.inFlight)
			}
		}
	}
	if twice > maxTwice {
		t.Errorf("%d pages fetched twice, want at most %d", twice, maxTwice)
	}
	crawled := 0
	for i := range r.cmds {
		m := crawledRE.FindStringSubmatch(r.outs[i].String())
		if m == nil {
			t.Fatalf("process w%d printed no summary:\n%s", i, r.outs[i])
		}
		n, _ := strconv.Atoi(m[1])
		crawled += n
		if out := r.outs[i].String() + r.errs[i].String(); strings.Contains(out, "robots") && strings.Contains(out, "unreachable") {
			t.Errorf("process w%d reports robots.txt unreachable:\n%s", i, out)
		}
	}
	if all := r.hosts * r.pages; crawled < all || crawled > all+twice {
		t.Errorf("the processes reported %d pages crawled in all, want %d (+ at most %d fetched twice)", crawled, all, twice)
	}
	r.site.checkPolite(t, 1, 100*time.Millisecond)
	t.Logf("in flight when the fault began: %d pages on %d hosts; %d fetched twice\n%s%s%s%s", len(r.inFlight), len(r.held), twice, r.outs[0], r.errs[0], r.outs[1], r.outs[2])
}

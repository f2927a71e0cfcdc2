package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
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

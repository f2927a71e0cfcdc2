package safety

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestPostgresRestartMidCrawl restarts the PostgreSQL server holding the
// graph and the index in the middle of a `linksrus crawl`. The crawl must
// say it failed (a non-zero exit or errors in its report), must not lose or
// duplicate what it had stored, and a second run must complete the work.
func TestPostgresRestartMidCrawl(t *testing.T) {
	pg := startPGServer(t)
	dsn := pg.createDB(t, "crawl")
	site := newTestSite(t, 200, 10*time.Millisecond)
	report := filepath.Join(t.TempDir(), "report.json")
	args := []string{"crawl", "--graph", dsn, "--index", dsn, "--allow-net", "127.0.0.0/8", "--workers", "4"}

	cmd := exec.Command(linksrusBinary(t), append(args, "--report", report, site.URL+"/")...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	waitFetched(t, site, len(site.pages())/4, cmd)
	pg.stop(t)
	stoppedAt := site.fetched()
	time.Sleep(time.Second) // writes in this window fail, or wait for the server
	pg.start(t)

	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the crawl did not end within 2 minutes of the restart\n%s", errb.String())
	}
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	rep := readReport(t, report)
	t.Logf("first run: exit %d after %d fetches (server stopped at %d); report: %d pages, %d errors %v; stderr: %s",
		code, site.fetched(), stoppedAt, rep.Summary.Pages, rep.Summary.Errors, rep.Summary.Reason, errb.String())
	if code == 0 && rep.Summary.Errors == 0 {
		t.Errorf("the crawl lost its database for a second and reported neither a failure nor errors")
	}
	mid := checkStores(t, dsn, dsn, site, false)
	t.Logf("after the first run: %d links, %d retrieved, %d indexed, %d edges", mid.links, mid.crawled, mid.indexed, mid.edges)

	r := linksrus(t, nil, append(args, site.URL+"/")...)
	if r.code != 0 {
		t.Fatalf("second run exited %d: %s", r.code, r.stderr)
	}
	end := checkStores(t, dsn, dsn, site, true)
	if end.crawled != len(site.pages()) {
		t.Errorf("after the second run: %d pages retrieved, want %d", end.crawled, len(site.pages()))
	}
	requireIndexed(t, end)
	t.Logf("after the second run: %d links, %d retrieved, %d indexed, %d edges; %d fetches in all",
		end.links, end.crawled, end.indexed, end.edges, site.fetched())
}

package safety

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/linksrus/linksrus/internal/pgtest"
)

// TestPostgresRestartMidCrawl stops the PostgreSQL server holding the
// graph and the index for a second in the middle of a `linksrus crawl`,
// then starts it again. The crawl waits for it (its statements are sent
// again once it is back) and finishes as if nothing happened: exit 0, no
// error in its report, every page retrieved and indexed once, nothing
// lost; a second run finds nothing left to do.
func TestPostgresRestartMidCrawl(t *testing.T) {
	pg, _ := pgtest.StartCluster(t)
	dsn := pg.CreateDatabase("crawl")
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
	pg.Stop()
	stoppedAt := site.fetched()
	time.Sleep(time.Second) // writes in this window wait for the server
	pg.Start()

	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the crawl did not end within 2 minutes of the restart\n%s", errb.String())
	}
	if err != nil {
		t.Fatalf("the crawl failed across a one-second restart of its database: %v\n%s%s", err, out.String(), errb.String())
	}
	rep := readReport(t, report)
	t.Logf("first run: %d fetches (server stopped at %d); report: %d pages, %d errors %v",
		site.fetched(), stoppedAt, rep.Summary.Pages, rep.Summary.Errors, rep.Summary.Reason)
	if rep.Summary.Errors != 0 {
		t.Errorf("the crawl reported %d errors (%v) for a restart it waited through", rep.Summary.Errors, rep.Summary.Reason)
	}
	end := checkStores(t, dsn, dsn, site, true)
	if end.crawled != len(site.pages()) {
		t.Errorf("after the run: %d pages retrieved, want %d", end.crawled, len(site.pages()))
	}
	requireIndexed(t, end)

	fetched := site.fetched()
	r := linksrus(t, nil, append(args, site.URL+"/")...)
	if r.code != 0 {
		t.Fatalf("second run exited %d: %s", r.code, r.stderr)
	}
	if again := site.fetched() - fetched; again != 0 {
		t.Errorf("the second run fetched %d pages again, want none: the first stored everything", again)
	}
	t.Logf("after the run: %d links, %d retrieved, %d indexed, %d edges; %d fetches in all",
		end.links, end.crawled, end.indexed, end.edges, site.fetched())
}

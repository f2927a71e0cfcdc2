package safety

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSIGKILLEmbeddedCrawlResumes kills `linksrus crawl` on the embedded
// stores with SIGKILL in the middle of a crawl, when nothing gets a chance
// to flush or close, then runs it again: the second run must open the same
// data directory, complete the crawl, and leave every page in the graph and
// the index, with nothing stored twice.
func TestSIGKILLEmbeddedCrawlResumes(t *testing.T) {
	site := newTestSite(t, 150, 10*time.Millisecond)
	data := t.TempDir()
	args := []string{"crawl", "--data", data, "--allow-net", "127.0.0.0/8", "--workers", "4", site.URL + "/"}

	cmd := exec.Command(linksrusBinary(t), args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFetched(t, site, site.n/3, cmd)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("first run ended with %v, want killed by SIGKILL\n%s", err, errb.String())
	}
	first := site.fetched()
	if first >= len(site.pages()) {
		t.Fatalf("the crawl fetched all %d pages before the kill; slow the site down", first)
	}
	graphURL := "bolt://" + filepath.Join(data, "graph.db")
	indexURL := "sqlite://" + filepath.Join(data, "index.db")
	mid := checkStores(t, graphURL, indexURL, site, false)
	t.Logf("killed after %d fetches: %d links, %d retrieved, %d indexed, %d edges", first, mid.links, mid.crawled, mid.indexed, mid.edges)

	report := filepath.Join(t.TempDir(), "report.json")
	r := linksrus(t, nil, append(args[:len(args)-1:len(args)-1], "--report", report, site.URL+"/")...)
	if r.code != 0 {
		t.Fatalf("resumed crawl exited %d: %s", r.code, r.stderr)
	}
	end := checkStores(t, graphURL, indexURL, site, true)
	if end.crawled != len(site.pages()) {
		t.Errorf("after resuming: %d pages retrieved, want %d", end.crawled, len(site.pages()))
	}
	requireIndexed(t, end)
	rep := readReport(t, report)
	t.Logf("resumed run: %d pages crawled, %d errors; %d fetches in all for %d pages", rep.Summary.Pages, rep.Summary.Errors, site.fetched(), len(site.pages()))
	if rep.Summary.Errors != 0 {
		t.Errorf("resumed run reported %d errors", rep.Summary.Errors)
	}

	r = linksrus(t, nil, "search", "--data", data, "gophers")
	if r.code != 0 {
		t.Errorf("search after the resumed crawl exited %d: %s", r.code, r.stderr)
	}
}

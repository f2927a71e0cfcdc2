package safety

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"
)

// cmdResult is how a run of the linksrus command ended.
type cmdResult struct {
	code           int
	stdout, stderr string
}

// linksrus runs the command to completion, or kills it after two minutes.
func linksrus(t *testing.T, env []string, args ...string) cmdResult {
	t.Helper()
	cmd := exec.Command(linksrusBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("start linksrus: %v", err)
	}
	timer := time.AfterFunc(2*time.Minute, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Wait()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return cmdResult{exit.ExitCode(), out.String(), errb.String()}
	case err != nil:
		t.Fatalf("run linksrus: %v", err)
	}
	return cmdResult{0, out.String(), errb.String()}
}

// crawlReport is the part of `linksrus crawl --report` the tests read.
type crawlReport struct {
	Summary struct {
		Pages  int            `json:"pages"`
		Errors int            `json:"errors"`
		Reason map[string]int `json:"reasons"`
	} `json:"summary"`
	URLs []struct {
		URL     string `json:"url"`
		Outcome string `json:"outcome"`
		Error   string `json:"error"`
	} `json:"urls"`
}

func readReport(t *testing.T, path string) crawlReport {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the report: %v", err)
	}
	var r crawlReport
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("parse the report: %v", err)
	}
	return r
}

// waitFetched waits until the site has served n pages, or fails.
func waitFetched(t *testing.T, site *testSite, n int, cmd *exec.Cmd) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for site.fetched() < n {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the crawl fetched only %d pages in 30s", site.fetched())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

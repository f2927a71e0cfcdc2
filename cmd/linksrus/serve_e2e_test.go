package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// servingLine is what `linksrus serve` prints once it listens.
var servingLine = regexp.MustCompile(`serving the search page on (http://\S+/)`)

// startServe runs `linksrus serve` on a free loopback port and returns its
// base URL; the process is stopped when the test ends. cred, if set, runs
// it as another user.
func startServe(t *testing.T, cred *syscall.Credential, args ...string) string {
	t.Helper()
	cmd := exec.Command(linksrusBin, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Error("serve did not stop on an interrupt")
		}
	})
	lines := make(chan string)
	go func() {
		defer close(exited)
		defer cmd.Wait()
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default: // nobody waits any more; keep draining
			}
		}
		close(lines)
	}()
	var output []string
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("serve exited:\n%s", strings.Join(output, "\n"))
			}
			output = append(output, line)
			if m := servingLine.FindStringSubmatch(line); m != nil {
				return m[1]
			}
		case <-timeout:
			t.Fatalf("serve did not start:\n%s", strings.Join(output, "\n"))
		}
	}
}

// apiGet fetches base+path and decodes its JSON into v.
func apiGet(t *testing.T, base, path string, v any) int {
	t.Helper()
	resp, err := http.Get(base + strings.TrimPrefix(path, "/"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	return resp.StatusCode
}

type apiStatus struct {
	Known    bool   `json:"known"`
	URLs     uint64 `json:"urls"`
	Crawled  uint64 `json:"crawled"`
	Indexed  uint64 `json:"indexed"`
	Crawling bool   `json:"crawling"`
	RunPages uint64 `json:"run_pages"`
}

type apiSearch struct {
	Total   uint64 `json:"total"`
	Results []struct {
		URL string `json:"url"`
	} `json:"results"`
}

// TestServeAndSearchWhileCrawling: the search page, and the search
// command, answer from the data directory a crawl is writing to.
func TestServeAndSearchWhileCrawling(t *testing.T) {
	site := newTestSite(t, 120, 30*time.Millisecond)
	data := t.TempDir()
	crawl := exec.Command(linksrusBin, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", "--per-host", "1", site.URL+"/")
	var crawlOut strings.Builder
	crawl.Stdout, crawl.Stderr = &crawlOut, &crawlOut
	if err := crawl.Start(); err != nil {
		t.Fatal(err)
	}
	crawlDone := make(chan error, 1)
	go func() { crawlDone <- crawl.Wait() }()
	var crawlErr error
	ended := false
	crawlEnded := func() bool {
		if !ended {
			select {
			case crawlErr = <-crawlDone:
				ended = true
			default:
			}
		}
		return ended
	}
	defer func() {
		if !crawlEnded() {
			_ = crawl.Process.Kill()
			<-crawlDone
		}
	}()

	// Wait for the crawl to have indexed something.
	deadline := time.Now().Add(30 * time.Second)
	for site.fetched() < 10 {
		if time.Now().After(deadline) {
			t.Fatalf("the crawl fetched %d pages in 30 s", site.fetched())
		}
		time.Sleep(20 * time.Millisecond)
	}
	base := startServe(t, nil, "--data", data)
	var during apiSearch
	for {
		if code := apiGet(t, base, "api/search?q=gophers", &during); code != http.StatusOK {
			t.Fatalf("api/search: status %d", code)
		}
		if during.Total > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("nothing found while crawling")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var st apiStatus
	apiGet(t, base, "api/status", &st)
	if !st.Crawling {
		t.Errorf("status while crawling = %+v, want crawling", st)
	}
	r := linksrus(t, nil, "search", "--data", data, "gophers")
	if r.code != 0 || !strings.Contains(r.stdout, "about gophers") {
		t.Errorf("search while crawling: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if crawlEnded() {
		t.Fatal("the crawl ended before the searches: make the site slower")
	}
	crawlErr, ended = <-crawlDone, true
	if crawlErr != nil {
		t.Fatalf("crawl: %v\n%s", crawlErr, crawlOut.String())
	}
	var after apiSearch
	apiGet(t, base, "api/search?q=gophers&limit=100", &after)
	if after.Total != uint64(site.distinct()) || after.Total <= during.Total {
		t.Errorf("after the crawl %d pages match, during %d; want all %d", after.Total, during.Total, site.distinct())
	}
	apiGet(t, base, "api/status", &st)
	if st.Crawling || !st.Known || st.Crawled != uint64(site.reachable()) || st.Indexed != uint64(site.distinct()) {
		t.Errorf("status after the crawl = %+v, want %d crawled and %d indexed (one text twice)", st, site.reachable(), site.distinct())
	}
}

// TestServeFromReadOnlyDirectory serves a data directory the server may
// not write to. Tests run as root in CI, who may write anywhere, so there
// the server runs as nobody.
func TestServeFromReadOnlyDirectory(t *testing.T) {
	site := newTestSite(t, 20, 0)
	data := filepath.Join(t.TempDir(), "data")
	if r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", site.URL+"/"); r.code != 0 {
		t.Fatalf("crawl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
		// nobody must reach the binary and the data, and only read them.
		for _, dir := range []string{filepath.Dir(linksrusBin), filepath.Dir(data), filepath.Dir(filepath.Dir(data))} {
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		entries, _ := os.ReadDir(data)
		for _, e := range entries {
			if err := os.Chmod(filepath.Join(data, e.Name()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(data, 0o755); err != nil {
			t.Fatal(err)
		}
	} else {
		if err := os.Chmod(data, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(data, 0o755) })
	}
	before, _ := os.ReadDir(data)
	base := startServe(t, cred, "--data", data)
	var res apiSearch
	if code := apiGet(t, base, "api/search?q=gophers&limit=100", &res); code != http.StatusOK || res.Total != uint64(site.distinct()) {
		t.Errorf("read-only search: status %d, %d results, want %d", code, res.Total, site.distinct())
	}
	var st apiStatus
	apiGet(t, base, "api/status", &st)
	if st.Crawled != uint64(site.reachable()) || st.Indexed != uint64(site.distinct()) {
		t.Errorf("read-only status = %+v", st)
	}
	after, _ := os.ReadDir(data)
	if len(after) != len(before) {
		t.Errorf("serve changed the read-only directory: %d entries before, %d after", len(before), len(after))
	}
}

// TestServeRefusesMissingData: no crawl yet is a clear message, not an
// empty index created on the spot.
func TestServeRefusesMissingData(t *testing.T) {
	data := filepath.Join(t.TempDir(), "none")
	r := linksrus(t, nil, "serve", "--data", data, "--listen", "127.0.0.1:0")
	if r.code == 0 || !strings.Contains(r.stderr, "no index in") {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(data); err == nil {
		t.Error("serve created the data directory")
	}
	// A mistyped --index is an error too, not a new empty index.
	typo := filepath.Join(t.TempDir(), "typo", "index.db")
	r = linksrus(t, nil, "serve", "--data", data, "--index", "sqlite://"+typo, "--listen", "127.0.0.1:0")
	if r.code == 0 {
		t.Errorf("serve --index %s: exit 0", typo)
	}
	if _, err := os.Stat(typo); err == nil {
		t.Errorf("serve created %s", typo)
	}
}

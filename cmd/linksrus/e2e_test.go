package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/linksrus/linksrus/internal/pgtest"
)

// binary is the linksrus command built for the end-to-end tests, which
// drive it as a user would.
var linksrusBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "linksrus-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	linksrusBin = filepath.Join(dir, "linksrus")
	build := exec.Command("go", "build", "-o", linksrusBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build linksrus:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// testSite is a generated site of n pages, page i linking to a few others
// and to one missing page, that counts how often each path is fetched.
type testSite struct {
	*httptest.Server
	n      int
	delay  time.Duration
	robots string // served as /robots.txt when set
	tag    string // written into every page when set, so that two sites' pages differ

	mu      sync.Mutex
	fetches map[string]int
}

func newTestSite(t *testing.T, n int, delay time.Duration) *testSite {
	return newTestSiteWithRobots(t, n, delay, "")
}

// newTestSiteWithRobots is newTestSite serving robots as /robots.txt.
func newTestSiteWithRobots(t *testing.T, n int, delay time.Duration, robots string) *testSite {
	s := &testSite{n: n, delay: delay, robots: robots, fetches: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *testSite) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.fetches[r.URL.Path]++
	s.mu.Unlock()
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-r.Context().Done():
			return
		}
	}
	var i int
	switch {
	case r.URL.Path == "/robots.txt":
		if s.robots == "" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, s.robots)
		return
	case r.URL.Path == "/":
		i = 0
	default:
		if _, err := fmt.Sscanf(r.URL.Path, "/page/%d", &i); err != nil || i < 0 || i >= s.n {
			http.NotFound(w, r)
			return
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<html><head><title>Page %d</title></head><body><h1>Page %d</h1>", i, i)
	fmt.Fprintf(w, "<p>This is page number %d about gophers", i)
	if s.tag != "" {
		fmt.Fprintf(w, " on %s", s.tag)
	}
	if i == 7 {
		fmt.Fprint(w, " and the unmistakable zanzibar marmalade")
	}
	fmt.Fprint(w, ".</p>")
	for _, j := range []int{i + 1, 2*i + 1, 3*i + 2, i / 2} {
		if j < s.n {
			fmt.Fprintf(w, `<a href="/page/%d">page %d</a> `, j, j)
		}
	}
	if i%10 == 3 {
		fmt.Fprintf(w, `<a href="/missing/%d">gone</a>`, i)
	}
	fmt.Fprint(w, "</body></html>")
}

// pageFetches returns how often each page (not robots.txt, not missing
// pages) was fetched.
func (s *testSite) pageFetches() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[string]int{}
	for p, c := range s.fetches {
		if p == "/" || strings.HasPrefix(p, "/page/") {
			m[p] = c
		}
	}
	return m
}

func (s *testSite) fetched() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for p, c := range s.fetches {
		if strings.HasPrefix(p, "/page/") || p == "/" {
			n += c
		}
	}
	return n
}

// reachable is the number of pages a crawl from "/" can reach: all of them,
// since page i links to i+1, and "/" itself.
func (s *testSite) reachable() int { return s.n + 1 }

// distinct is the number of search results the site's pages make: "/"
// serves page 0's text, so the index shows the two as one.
func (s *testSite) distinct() int { return s.n }

type result struct {
	code           int
	stdout, stderr string
}

func linksrus(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(linksrusBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("run linksrus: %v", err)
	}
	return result{code, out.String(), errb.String()}
}

func TestCrawlThenSearch(t *testing.T) {
	site := newTestSite(t, 40, 0)
	data := t.TempDir()
	report := filepath.Join(t.TempDir(), "report.json")
	r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", "--report", report, site.URL+"/")
	if r.code != 0 {
		t.Fatalf("crawl exited %d: %s", r.code, r.stderr)
	}
	for p, c := range site.pageFetches() {
		if c != 1 {
			t.Errorf("%s fetched %d times, want 1", p, c)
		}
	}
	if got := len(site.pageFetches()); got != site.reachable() {
		t.Errorf("fetched %d distinct pages, want %d", got, site.reachable())
	}

	r = linksrus(t, nil, "search", "--data", data, "--json", "zanzibar", "marmalade")
	if r.code != 0 {
		t.Fatalf("search exited %d: %s", r.code, r.stderr)
	}
	var found struct {
		Total   int
		Results []struct{ URL, Title, Snippet string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &found); err != nil {
		t.Fatalf("search --json: %v\n%s", err, r.stdout)
	}
	if found.Total != 1 || len(found.Results) != 1 || found.Results[0].URL != site.URL+"/page/7" ||
		!strings.Contains(found.Results[0].Snippet, "zanzibar") {
		t.Fatalf("search found %+v, want page 7 with a snippet", found)
	}

	// 41 pages, "/" and /page/0 one result (the same text).
	r = linksrus(t, nil, "search", "--data", data, "--limit", "50", "gophers")
	if r.code != 0 || !strings.Contains(r.stdout, "of 40.") || !strings.Contains(r.stdout, "also at "+site.URL+"/page/0\n") {
		t.Fatalf("search gophers: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The search-box syntax: site: restricts to a host and port (the
	// default one without a port), -word leaves out.
	hostPort := strings.TrimPrefix(site.URL, "http://")
	r = linksrus(t, nil, "search", "--data", data, "gophers", "site:"+hostPort)
	if r.code != 0 || !strings.Contains(r.stdout, "of 40.") {
		t.Fatalf("search gophers site:%s: exit %d\n%s%s", hostPort, r.code, r.stdout, r.stderr)
	}
	r = linksrus(t, nil, "search", "--data", data, "gophers", "site:127.0.0.1")
	if r.code != 0 || !strings.Contains(r.stdout, "No pages match") {
		t.Fatalf("search gophers site:127.0.0.1 (port 80): exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = linksrus(t, nil, "search", "--data", data, "gophers", "site:example.com")
	if r.code != 0 || !strings.Contains(r.stdout, "No pages match") {
		t.Fatalf("search gophers site:example.com: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = linksrus(t, nil, "search", "--data", data, "--json", "gophers -zanzibar")
	if r.code != 0 || strings.Contains(r.stdout, site.URL+"/page/7\"") || !strings.Contains(r.stdout, `"total": 39`) {
		t.Fatalf("search gophers -zanzibar: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A search that cannot answer within --timeout gives up, saying so.
	r = linksrus(t, nil, "search", "--data", data, "--timeout", "1ns", "gophers")
	if r.code != exitFailure || !strings.Contains(r.stderr, "gave up after --timeout 1ns") {
		t.Fatalf("search --timeout 1ns: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	var rep struct {
		Summary struct{ Pages, Errors int }
		Broken  []struct {
			URL        string
			Status     int
			LinkedFrom []string `json:"linked_from"`
		} `json:"broken_links"`
		URLs []struct{ URL, Outcome string }
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Pages != 41 || len(rep.URLs) != 45 || len(rep.Broken) != 4 {
		t.Fatalf("report: %d pages, %d URLs, %d broken; want 41, 45, 4", rep.Summary.Pages, len(rep.URLs), len(rep.Broken))
	}
	for _, b := range rep.Broken {
		var n int
		fmt.Sscanf(b.URL, site.URL+"/missing/%d", &n)
		if b.Status != 404 || len(b.LinkedFrom) != 1 || b.LinkedFrom[0] != fmt.Sprintf("%s/page/%d", site.URL, n) {
			t.Errorf("broken link %+v, want 404 linked from page %d", b, n)
		}
	}

	r = linksrus(t, nil, "stats", "--data", data, "--json")
	var st graphStats
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || st.Crawled != 41 || st.IndexedPages != 41 || st.URLs != 45 {
		t.Fatalf("stats = %+v (%v), want 41 crawled and indexed of 45 URLs\n%s", st, err, r.stderr)
	}
}

func TestInterruptedCrawlResumesWithoutRefetching(t *testing.T) {
	site := newTestSite(t, 120, 20*time.Millisecond)
	data := t.TempDir()
	args := []string{"crawl", "--data", data, "--allow-net", "127.0.0.0/8", "--workers", "4", site.URL + "/"}

	cmd := exec.Command(linksrusBin, args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for site.fetched() < 30 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
		t.Fatalf("interrupted crawl: %v, want exit code %d\n%s", err, exitInterrupted, errb.String())
	}
	first := site.fetched()
	if first >= site.reachable() {
		t.Fatalf("the crawl finished (%d pages) before it was interrupted; slow the site down", first)
	}

	r := linksrus(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("resumed crawl exited %d: %s", r.code, r.stderr)
	}
	fetches := site.pageFetches()
	if len(fetches) != site.reachable() {
		t.Errorf("fetched %d distinct pages over both runs, want %d", len(fetches), site.reachable())
	}
	for p, c := range fetches {
		if c != 1 {
			t.Errorf("%s fetched %d times over both runs, want 1", p, c)
		}
	}
	t.Logf("first run fetched %d pages before SIGINT, second %d", first, site.fetched()-first)
}

func TestPartitionedCrawlOnPostgres(t *testing.T) {
	dsn := pgtest.Database(t, "cmd")
	site := newTestSite(t, 150, time.Millisecond)
	env := []string{"LINKSRUS_GRAPH=" + dsn, "LINKSRUS_INDEX=" + dsn}
	const n = 3
	var wg sync.WaitGroup
	results := make([]result, n)
	for i := range n {
		wg.Go(func() {
			results[i] = linksrus(t, env, "crawl", "--allow-net", "127.0.0.0/8", "--workers", "4",
				"--partition", fmt.Sprintf("%d/%d", i, n), "--partition-idle", "3s", site.URL+"/")
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 {
			t.Fatalf("partition %d/%d exited %d: %s", i, n, r.code, r.stderr)
		}
	}
	fetches := site.pageFetches()
	if len(fetches) != site.reachable() {
		t.Errorf("fetched %d distinct pages, want %d", len(fetches), site.reachable())
	}
	for p, c := range fetches {
		if c != 1 {
			t.Errorf("%s fetched %d times, want exactly once", p, c)
		}
	}
	r := linksrus(t, env, "search", "--json", "zanzibar")
	if r.code != 0 || !strings.Contains(r.stdout, site.URL+"/page/7") {
		t.Fatalf("search on the shared index: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestBadCommandLinesFailWithOneLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"unknown command", []string{"fly"}, exitUsage},
		{"unknown flag", []string{"crawl", "--bogus", "http://127.0.0.1/"}, exitUsage},
		{"no seed", []string{"crawl"}, exitUsage},
		{"bad seed", []string{"crawl", "ftp://x/"}, exitUsage},
		{"bad partition", []string{"crawl", "--partition", "3/3", "http://127.0.0.1/"}, exitUsage},
		{"bad regexp", []string{"crawl", "--include", "(", "http://127.0.0.1/"}, exitUsage},
		{"bad cidr", []string{"crawl", "--allow-net", "300.0.0.0/8", "http://127.0.0.1/"}, exitUsage},
		{"zero max-body", []string{"crawl", "--max-body", "0", "http://127.0.0.1/"}, exitUsage},
		{"zero timeout", []string{"crawl", "--timeout", "0", "http://127.0.0.1/"}, exitUsage},
		{"empty data dir", []string{"crawl", "--data", "", "http://127.0.0.1/"}, exitUsage},
		{"report into a missing directory", []string{"crawl", "--report", "/nonexistent/linksrus/r.json", "http://127.0.0.1/"}, exitUsage},
		{"partition of an embedded graph", []string{"crawl", "--partition", "0/2", "http://127.0.0.1/"}, exitUsage},
		{"bad deny cidr", []string{"crawl", "--deny-net", "10.0.0.0/99", "http://127.0.0.1/"}, exitUsage},
		{"empty domain item", []string{"crawl", "--domains", ",,,", "http://127.0.0.1/"}, exitUsage},
		{"blank domain", []string{"crawl", "--domains", " ", "http://127.0.0.1/"}, exitUsage},
		{"flag after arguments, bad", []string{"search", "x", "--limit", "0"}, exitUsage},
		{"unreachable database", []string{"crawl", "--graph", "postgres://nobody@127.0.0.1:1/x", "http://127.0.0.1/"}, exitFailure},
		{"unknown store", []string{"crawl", "--graph", "mongo://x", "http://127.0.0.1/"}, exitFailure},
		{"search without data", []string{"search", "--data", "/nonexistent/linksrus", "x"}, exitFailure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := linksrus(t, nil, tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tc.code, r.stderr)
			}
			if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
				t.Fatalf("stack trace on stderr:\n%s", r.stderr)
			}
			if tc.code == exitFailure && strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
				t.Fatalf("want a one-line error, got:\n%s", r.stderr)
			}
			// A usage error: the one line that matters and where the
			// usage is, not every flag.
			if tc.code == exitUsage && strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
				t.Fatalf("want the error and a hint, got:\n%s", r.stderr)
			}
		})
	}
}

// An option value out of range is a usage error that names the flag and
// its value, in the words the engine's (or the crawler's) one check of the
// option gives, found before anything is created.
func TestOptionMistakesNameTheFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"crawl", "--workers", "-1"}, "--workers: -1 is negative"},
		{[]string{"crawl", "--per-host", "-1"}, "--per-host: -1 is negative"},
		{[]string{"crawl", "--max-pages", "-1"}, "--max-pages: -1 is negative"},
		{[]string{"crawl", "--max-depth", "-1"}, "--max-depth: -1 is negative"},
		{[]string{"crawl", "--max-body", "-1"}, "--max-body: -1 is negative"},
		{[]string{"crawl", "--timeout", "-1s"}, "--timeout: -1s is negative"},
		{[]string{"crawl", "--delay", "-1s"}, "--delay: -1s is negative"},
		{[]string{"crawl", "--recrawl-after", "-1s"}, "--recrawl-after: -1s is negative"},
		{[]string{"crawl", "--include", "("}, "--include: \"(\" is not a regular expression: error parsing regexp: missing closing ): `(`"},
		{[]string{"crawl", "--exclude", "a["}, "--exclude: \"a[\" is not a regular expression"},
		{[]string{"crawl", "--domains", "www.example.com"}, `--domains: "www.example.com" is not a registrable domain (its registrable domain is "example.com")`},
		{[]string{"crawl", "--idle", "-1s"}, "--idle: -1s is negative"},
		{[]string{"crawl", "--lease-ttl", "10ms"}, "--lease-ttl: 10ms is below 100ms"},
		{[]string{"crawl", "--graph", "postgres://nobody@127.0.0.1:1/x", "--partition", "0/2", "--partition-idle", "-1s"}, "--partition-idle: -1s is negative"},
		// Flags the command checks itself: no option takes their value.
		{[]string{"crawl", "--retries", "-1"}, "--retries: -1 is negative"},
		{[]string{"crawl", "--max-redirects", "-1"}, "--max-redirects: -1 is negative"},
		{[]string{"crawl", "--every", "-1s"}, "--every: -1s is negative"},
		{[]string{"import", "--max-body", "-1"}, "--max-body: -1 is negative"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			arg := "http://127.0.0.1:1/"
			if tc.args[0] == "import" {
				arg = t.TempDir()
			}
			args := append([]string{tc.args[0], "--data", data}, tc.args[1:]...)
			r := linksrus(t, nil, append(args, arg)...)
			line, _, _ := strings.Cut(r.stderr, "\n")
			if want := "linksrus " + tc.args[0] + ": " + tc.want; r.code != exitUsage || !strings.HasPrefix(line, want) {
				t.Errorf("exit %d, first line\n%s\nwant exit %d and\n%s", r.code, line, exitUsage, want)
			}
			if _, err := os.Stat(data); !os.IsNotExist(err) {
				t.Errorf("a usage error created the data directory (%v)", err)
			}
		})
	}
}

// Flags go before or after the arguments; "--" ends them.
func TestFlagsAfterArguments(t *testing.T) {
	data := t.TempDir()
	r := linksrus(t, nil, "search", "--data", data, "gophers", "--limit", "1")
	if strings.Contains(r.stdout+r.stderr, "--limit") {
		t.Errorf("--limit after the query was taken as a word:\n%s%s", r.stdout, r.stderr)
	}
	r = linksrus(t, nil, "search", "--data", data, "--", "-gophers")
	if strings.Contains(r.stderr, "flag provided but not defined") {
		t.Errorf("-gophers after -- was taken as a flag:\n%s", r.stderr)
	}
}

func TestVersion(t *testing.T) {
	r := linksrus(t, nil, "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "linksrus ") || !strings.Contains(r.stdout, "go1.") {
		t.Errorf("--version: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// --listen on a busy port fails before the data directory is created.
func TestListenBusyPortLeavesNoData(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	data := filepath.Join(t.TempDir(), "data")
	r := linksrus(t, nil, "crawl", "--data", data, "--listen", ln.Addr().String(), "http://127.0.0.1:1/")
	if r.code != exitFailure {
		t.Errorf("exit %d, want %d: %s", r.code, exitFailure, r.stderr)
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Errorf("the data directory was created: %v", err)
	}
}

func TestHelpExitsZero(t *testing.T) {
	for _, c := range []string{"crawl", "search", "stats"} {
		r := linksrus(t, nil, c, "--help")
		if r.code != 0 || !strings.Contains(r.stderr, "Usage: linksrus "+c) {
			t.Errorf("%s --help: exit %d\n%s", c, r.code, r.stderr)
		}
	}
}

func TestRobotsTxtIsObeyed(t *testing.T) {
	const robots = "User-agent: *\nDisallow: /page/1\n\nUser-agent: other\nDisallow: /\n"
	site := newTestSiteWithRobots(t, 30, 0, robots)
	report := filepath.Join(t.TempDir(), "report.json")
	r := linksrus(t, nil, "crawl", "--graph", "memory://", "--index", "none", "--allow-net", "127.0.0.0/8",
		"--report", report, site.URL+"/")
	if r.code != 0 {
		t.Fatalf("crawl exited %d: %s", r.code, r.stderr)
	}
	fetches := site.pageFetches()
	for p := range fetches {
		if strings.HasPrefix(p, "/page/1") {
			t.Errorf("%s fetched although robots.txt disallows it", p)
		}
	}
	site.mu.Lock()
	robotsFetches := site.fetches["/robots.txt"]
	site.mu.Unlock()
	if robotsFetches != 1 {
		t.Errorf("robots.txt fetched %d times, want once", robotsFetches)
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		URLs []struct{ URL, Outcome string }
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	disallowed := 0
	for _, u := range rep.URLs {
		isDisallowed := strings.HasPrefix(u.URL, site.URL+"/page/1")
		if isDisallowed {
			disallowed++
		}
		if isDisallowed != (u.Outcome == "robots") {
			t.Errorf("%s: outcome %q", u.URL, u.Outcome)
		}
	}
	if disallowed == 0 {
		t.Error("no disallowed URL in the report")
	}

	// --ignore-robots fetches everything and never asks for robots.txt.
	site2 := newTestSiteWithRobots(t, 30, 0, robots)
	r = linksrus(t, nil, "crawl", "--graph", "memory://", "--index", "none", "--allow-net", "127.0.0.0/8",
		"--ignore-robots", site2.URL+"/")
	site2.mu.Lock()
	robotsFetches = site2.fetches["/robots.txt"]
	site2.mu.Unlock()
	if r.code != 0 || len(site2.pageFetches()) != site2.reachable() || robotsFetches != 0 {
		t.Fatalf("--ignore-robots: exit %d, %d pages, robots.txt fetched %d times",
			r.code, len(site2.pageFetches()), robotsFetches)
	}
}

func TestServiceModeRecrawlsAndServesMetrics(t *testing.T) {
	site := newTestSite(t, 10, 0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(linksrusBin, "crawl", "--graph", "memory://", "--index", "none", "--allow-net", "127.0.0.0/8",
		"--every", "300ms", "--listen", addr, site.URL+"/")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	// Every run re-fetches the site (--recrawl-after defaults to --every),
	// so the root page is fetched again and again.
	deadline := time.Now().Add(20 * time.Second)
	for {
		site.mu.Lock()
		n := site.fetches["/"]
		site.mu.Unlock()
		if n >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("root fetched %d times in service mode, want 3 runs\n%s", n, errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz: %s", resp.Status)
	}
	resp, err = client.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var pages int
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "linksrus_pages_crawled_total ") {
			fmt.Sscan(strings.TrimPrefix(line, "linksrus_pages_crawled_total "), &pages)
		}
	}
	if pages < 2*site.reachable() {
		t.Errorf("metrics report %d pages crawled, want at least two runs' worth\n%s", pages, body)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("service stopped with SIGTERM: %v, want exit 0\n%s", err, errb.String())
	}
}

func TestRedirectOutOfScopeIsNotFollowed(t *testing.T) {
	var awayHits atomic.Int32
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		awayHits.Add(1)
		fmt.Fprint(w, "<title>elsewhere</title>")
	}))
	defer away.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<a href="/away">away</a> <a href="/moved">moved</a>`)
		case "/away":
			// Same address, other host name: out of --same-host's scope.
			http.Redirect(w, r, strings.Replace(away.URL, "127.0.0.1", "localhost", 1)+"/", http.StatusFound)
		case "/moved":
			http.Redirect(w, r, "/target", http.StatusMovedPermanently)
		case "/target":
			fmt.Fprint(w, "<title>target</title>")
		default:
			http.NotFound(w, r)
		}
	}))
	defer home.Close()
	report := filepath.Join(t.TempDir(), "report.json")
	r := linksrus(t, nil, "crawl", "--graph", "memory://", "--index", "none", "--allow-net", "127.0.0.0/8",
		"--ignore-robots", "--report", report, home.URL+"/")
	if r.code != 0 {
		t.Fatalf("crawl exited %d: %s", r.code, r.stderr)
	}
	if n := awayHits.Load(); n != 0 {
		t.Errorf("the other host was fetched %d times through a redirect", n)
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		URLs []struct {
			URL, Outcome string
			FinalURL     string `json:"final_url"`
		} `json:"urls"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, u := range rep.URLs {
		got[strings.TrimPrefix(u.URL, home.URL)] = u.Outcome + " " + strings.TrimPrefix(u.FinalURL, home.URL)
	}
	if got["/away"] != "scope " || got["/moved"] != "crawled /target" {
		t.Errorf("outcomes %v, want /away out of scope and /moved crawled at /target", got)
	}
}

package main

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The mistakes of a first crawl are told what to do about them, and a
// command-line mistake is a usage error (exit 2) found before anything is
// created.
func TestFirstCrawlMistakesSayWhatToDo(t *testing.T) {
	site := newTestSite(t, 3, 0)
	hostPort := strings.TrimPrefix(site.URL, "http://")
	for _, tc := range []struct {
		name, seed string
		code       int
		want       string
	}{
		{"seed without a scheme", hostPort + "/", exitUsage, `did you mean "http://` + hostPort + `/"`},
		{"host name without a scheme", "example.com/docs", exitUsage, `did you mean "http://example.com/docs"`},
		{"seed longer than the graph stores", site.URL + "/" + strings.Repeat("a", 10<<10), exitUsage, "longer than the 2048"},
		{"loopback seed without --allow-net", site.URL + "/", exitFailure, "--allow-net 127.0.0.0/8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			r := linksrus(t, nil, "crawl", "--data", data, tc.seed)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d, want %d and %q on stderr:\n%s%s", r.code, tc.code, tc.want, r.stdout, r.stderr)
			}
			if tc.code == exitUsage {
				if _, err := os.Stat(data); !os.IsNotExist(err) {
					t.Errorf("a usage error created the data directory (%v)", err)
				}
			}
			if tc.code == exitFailure && !strings.Contains(r.stdout, "1 errors") {
				t.Errorf("a refused seed is not counted as an error:\n%s", r.stdout)
			}
		})
	}
}

// stats reads the stores without writing to them (so it works in a
// directory it may not write to), and during a crawl, which holds the
// embedded graph, it shows what the crawl recorded and the index as it is
// instead of failing with "database file is in use".
func TestStatsReadsOnlyAndWorksDuringACrawl(t *testing.T) {
	site := newTestSite(t, 200, 20*time.Millisecond)
	data := t.TempDir()
	args := []string{"crawl", "--data", data, "--allow-net", "127.0.0.0/8", "--workers", "2", "--rank=false"}
	if r := linksrus(t, nil, append(args, "--max-pages", "10", site.URL+"/")...); r.code != 0 {
		t.Fatalf("crawl: exit %d: %s", r.code, r.stderr)
	}
	before := dirSnapshot(t, data)
	r := linksrus(t, nil, "stats", "--data", data, "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"crawled": 10`) {
		t.Fatalf("stats: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if after := dirSnapshot(t, data); !maps.Equal(after, before) {
		t.Errorf("stats changed the data directory:\nbefore %v\nafter  %v", before, after)
	}

	cmd := exec.Command(linksrusBin, append(args, site.URL+"/")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
	}()
	deadline := time.Now().Add(30 * time.Second)
	for site.fetched() < 20 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	r = linksrus(t, nil, "stats", "--data", data)
	if r.code != 0 || !strings.Contains(r.stdout, "a crawl is running") || !strings.Contains(r.stdout, "pages indexed") {
		t.Errorf("stats during a crawl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// dirSnapshot maps each file in dir to its size, modification time and
// contents; but for SQLite's shared-memory file and an empty write-ahead
// log, which a reader of a WAL database creates where it may.
func dirSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(e.Name(), "-shm") || (strings.HasSuffix(e.Name(), "-wal") && fi.Size() == 0) {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		m[e.Name()] = fmt.Sprintf("%d %v %x", fi.Size(), fi.ModTime().UnixNano(), sha256.Sum256(b))
	}
	return m
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/linksrus/linksrus/internal/chromium/chromiumtest"
	"github.com/linksrus/linksrus/internal/jsweb"
)

// TestCrawlJavaScriptSiteFindsTheShell: a crawl of the HTML as served
// finds, of a site built by JavaScript (internal/jsweb), the shell and
// nothing else: none of the pages a person clicking through reaches, none
// of the text fetched after load, and it runs no script (the API and the
// script are never requested). This is the baseline a crawl that renders
// pages must improve on (#27).
func TestCrawlJavaScriptSiteFindsTheShell(t *testing.T) {
	s, err := jsweb.Start(jsweb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	data := t.TempDir()
	if r := linksrus(t, nil, "crawl", "--data", data, "--allow-net", "127.0.0.0/8", s.URL()+"/"); r.code != 0 {
		t.Fatalf("crawl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	search := func(q string) []string { return searchPaths(t, data, s.URL(), q) }
	if got := search("quokka docs"); !slices.Equal(got, jsweb.Shell()) {
		t.Errorf("the site's pages found: %v, want the shell %v", got, jsweb.Shell())
	}
	for _, route := range s.Pages() {
		if w := jsweb.LateWord(route); w != "" {
			if got := search(w); len(got) != 0 {
				t.Errorf("%s's text fetched after load (%s) found at %v", route, w, got)
			}
		}
		if route != "/" && s.Requests(route) != 0 {
			t.Errorf("%s requested %d times by a crawl that runs no script", route, s.Requests(route))
		}
	}
	for _, path := range []string{"/app.js", "/api/nav.json", "/api/page/home"} {
		if n := s.Requests(path); n != 0 {
			t.Errorf("%s requested %d times", path, n)
		}
	}
}

// searchPaths searches the crawl in data for q and returns the paths of
// the results on base.
func searchPaths(t *testing.T, data, base, q string) []string {
	t.Helper()
	r := linksrus(t, nil, "search", "--data", data, "--json", q)
	var out struct {
		Results []struct {
			URL string `json:"url"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("search --json %s: %v\n%s%s", q, err, r.stdout, r.stderr)
	}
	var paths []string
	for _, res := range out.Results {
		paths = append(paths, strings.TrimPrefix(res.URL, base))
	}
	return paths
}

// TestCrawlRendersJavaScriptSite: with --render always or auto, a crawl
// of the site built by JavaScript finds every page a person clicking
// through reaches and the text fetched after load; the page whose timers
// never stop is read when its budget runs out, and the one that eats
// memory until its tab dies is crawled as served, with their outcomes
// saying so, while the crawl goes on; the probes the site's script makes,
// of a private address and of a host whose robots.txt disallows them,
// reach neither; and no browser is left running once the crawl is over.
func TestCrawlRendersJavaScriptSite(t *testing.T) {
	chromiumtest.ForTest(t)
	for _, mode := range []string{"always", "auto"} {
		t.Run(mode, func(t *testing.T) {
			private, privateConns := chromiumtest.CountConnections(t, "127.0.0.3")
			disallowedURL, disallowed, closeDisallowed, err := jsweb.Disallowing("127.0.0.2")
			if err != nil {
				t.Skip(err)
			}
			defer closeDisallowed()
			s, err := jsweb.Start(jsweb.Options{PrivateURL: "http://" + private + "/probe", DisallowedURL: disallowedURL + "/secret"})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			data, tmp := t.TempDir(), t.TempDir()
			report := filepath.Join(t.TempDir(), "report.json")
			r := linksrus(t, []string{"TMPDIR=" + tmp}, "crawl", "--data", data, "--report", report,
				"--allow-net", "127.0.0.1/32", "--allow-net", "127.0.0.2/32",
				"--render", mode, "--render-timeout", "3s", s.URL()+"/")
			if r.code != 0 {
				t.Fatalf("crawl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if left := chromiumtest.Processes(tmp); len(left) > 0 {
				t.Errorf("browser processes left after the crawl: %v", left)
			}
			outs := readReport(t, report)
			var crawled []string
			for _, o := range outs {
				if o.Outcome == "crawled" {
					crawled = append(crawled, strings.TrimPrefix(o.URL, s.URL()))
				}
			}
			slices.Sort(crawled)
			if !slices.Equal(crawled, s.Pages()) {
				t.Errorf("crawled %v, want every page %v", crawled, s.Pages())
			}
			for _, route := range s.Pages() {
				if w := jsweb.LateWord(route); w != "" {
					if got := searchPaths(t, data, s.URL(), w); !slices.Equal(got, []string{route}) {
						t.Errorf("search for %s's text fetched after load (%s) found %v", route, w, got)
					}
				}
			}
			for _, o := range outs {
				switch strings.TrimPrefix(o.URL, s.URL()) {
				case "/endless.html":
					if o.Render == nil || !o.Render.Rendered || o.Render.Settled {
						t.Errorf("the never-settling page: %+v, want rendered unsettled", o.Render)
					}
				case "/hog.html":
					// It dies, or under load is still eating memory,
					// unanswering, when its budget runs out.
					if o.Render == nil || o.Render.Rendered || !(strings.Contains(o.Render.Error, "crashed") || strings.Contains(o.Render.Error, "did not answer")) {
						t.Errorf("the memory-hungry page: %+v, want a crashed or unanswering render", o.Render)
					}
				case "/":
					if o.Render == nil || !o.Render.Rendered || o.Render.Refused < 2 {
						t.Errorf("the home page: %+v, want rendered, its two probes refused", o.Render)
					}
				}
			}
			if n := privateConns.Load(); n != 0 {
				t.Errorf("the private address had %d connections", n)
			}
			if n := disallowed(); n != 0 {
				t.Errorf("the host whose robots.txt disallows it had %d requests", n)
			}
		})
	}
}

// TestRenderingCrawlInterruptedLeavesNoBrowser: a rendering crawl stopped
// by Ctrl-C, or killed (kill -9), leaves no browser process behind.
func TestRenderingCrawlInterruptedLeavesNoBrowser(t *testing.T) {
	chromiumtest.ForTest(t)
	for _, sig := range []os.Signal{os.Interrupt, os.Kill} {
		t.Run(sig.String(), func(t *testing.T) {
			s, err := jsweb.Start(jsweb.Options{Generated: 200})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			tmp := t.TempDir()
			// Few workers: an interrupted crawl finishes the pages in
			// flight, each rendered.
			cmd := exec.Command(linksrusBin, "crawl", "--data", t.TempDir(), "--allow-net", "127.0.0.0/8",
				"--workers", "2", "--render", "always", "--render-timeout", "3s", s.URL()+"/gen/0")
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(20 * time.Second)
			for len(chromiumtest.Processes(tmp)) == 0 || s.Requests("/gen/3") == 0 {
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
					t.Fatalf("the crawl did not get to rendering pages (browser processes %v):\n%s", chromiumtest.Processes(tmp), out.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			signalled := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			t.Logf("%v: the crawl ended %v after the signal", sig, time.Since(signalled).Round(time.Millisecond))
			// The browser's own processes see their parent go; give them
			// the time they take to notice.
			var left []chromiumtest.Process
			for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
				if left = chromiumtest.Processes(tmp); len(left) == 0 {
					return
				}
			}
			t.Errorf("after %v, browser processes left: %v", sig, left)
		})
	}
}

// readReport reads the outcomes of a crawl's --report.
func readReport(t *testing.T, path string) []urlOutcome {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		URLs []urlOutcome `json:"urls"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	return rep.URLs
}

// TestCrawlRenderWithoutBrowser: --render without Chromium to run fails at
// once, before any store is made, in one line that says how to install it.
func TestCrawlRenderWithoutBrowser(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	r := linksrus(t, []string{"PATH=" + t.TempDir()}, "crawl", "--data", data, "--render", "always", "http://127.0.0.1:1/")
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != 2 || !strings.Contains(lines[0], "apt-get install -y chromium") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(data); err == nil {
		t.Error("the data directory was made")
	}
}

package safety

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// testSite is a generated site of n pages on loopback: page i links to a
// few others, so a crawl from "/" reaches every page. It counts the fetches
// of each path, and can be slowed down so that a crawl lasts long enough to
// be interfered with.
type testSite struct {
	*httptest.Server
	n     int
	delay time.Duration

	mu      sync.Mutex
	fetches map[string]int
}

func newTestSite(t *testing.T, n int, delay time.Duration) *testSite {
	s := &testSite{n: n, delay: delay, fetches: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *testSite) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.fetches[r.URL.Path]++
	s.mu.Unlock()
	if s.delay > 0 {
		t := time.NewTimer(s.delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	var i int
	switch {
	case r.URL.Path == "/":
		i = 0
	case strings.HasPrefix(r.URL.Path, "/page/"):
		if _, err := fmt.Sscanf(r.URL.Path, "/page/%d", &i); err != nil || i < 0 || i >= s.n {
			http.NotFound(w, r)
			return
		}
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<html><head><title>Page %d</title></head><body><p>Page %d is about gophers.</p>", i, i)
	for _, j := range []int{i + 1, 2*i + 1, 3*i + 2, i / 2} {
		if j < s.n {
			fmt.Fprintf(w, `<a href="/page/%d">page %d</a> `, j, j)
		}
	}
	fmt.Fprint(w, "</body></html>")
}

// pages returns the URLs of every page of the site: "/" (which serves
// page 0) and /page/0 to /page/n-1, all reachable from "/".
func (s *testSite) pages() []string {
	out := []string{s.URL + "/"}
	for i := range s.n {
		out = append(out, fmt.Sprintf("%s/page/%d", s.URL, i))
	}
	return out
}

// fetched returns how many page requests the site has served.
func (s *testSite) fetched() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for p, c := range s.fetches {
		if p == "/" || strings.HasPrefix(p, "/page/") {
			n += c
		}
	}
	return n
}

package hostileweb_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/linksrus/linksrus/internal/hostileweb"
)

var errLoop = errors.New("redirect loop")

func TestRedirectLoop(t *testing.T) {
	s := start(t, smallOptions)
	c := newClient(t, 5*time.Second)
	for from, to := range map[string]string{
		hostileweb.PathRedirectLoop: "/trap/redirect-loop/b",
		"/trap/redirect-loop/b":     hostileweb.PathRedirectLoop,
	} {
		resp, _ := fetch(t, c, s.URL()+from, 1<<10)
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != to {
			t.Errorf("%s: %d to %q, want 302 to %q", from, resp.StatusCode, resp.Header.Get("Location"), to)
		}
	}

	// A client that remembers its chain sees the loop on the second hop.
	hops := 0
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		hops = len(via)
		for _, v := range via {
			if v.URL.String() == req.URL.String() {
				return errLoop
			}
		}
		return nil
	}
	_, err := c.Get(s.URL() + hostileweb.PathRedirectLoop)
	if !errors.Is(err, errLoop) || hops != 2 {
		t.Errorf("GET error = %v after %d hops, want the loop detected after 2", err, hops)
	}
}

func TestRedirectChain(t *testing.T) {
	s := start(t, hostileweb.Options{})
	c := newClient(t, 10*time.Second)
	hops := 0
	c.CheckRedirect = func(_ *http.Request, via []*http.Request) error {
		hops = len(via)
		return nil
	}
	resp, body := fetch(t, c, s.URL()+hostileweb.PathRedirectChain, 1<<10)
	if resp.StatusCode != http.StatusOK || hops != hostileweb.DefaultRedirectHops {
		t.Errorf("got %d after %d hops, want 200 after %d", resp.StatusCode, hops, hostileweb.DefaultRedirectHops)
	}
	if !strings.Contains(string(body), "end of the redirect chain") {
		t.Errorf("final page %q, want the end of the chain", body)
	}

	// net/http's own policy gives up after 10.
	c.CheckRedirect = nil
	if _, err := c.Get(s.URL() + hostileweb.PathRedirectChain); err == nil || !strings.Contains(err.Error(), "stopped after 10 redirects") {
		t.Errorf("default policy: error = %v, want stopped after 10 redirects", err)
	}

	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, p := range []string{"/trap/redirect-chain/51", "/trap/redirect-chain/01", "/trap/redirect-chain/-1", "/trap/redirect-loop/c"} {
		if resp, _ := fetch(t, c, s.URL()+p, 1<<10); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", p, resp.StatusCode)
		}
	}
}

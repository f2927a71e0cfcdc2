package crawler

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler/robots"
)

func TestRobotsGate(t *testing.T) {
	s, _ := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "User-agent: *\nCrawl-delay: 2\nDisallow: /private/\n")
	})
	client := NewURLGetter(loopbackConfig().PrivateNetworkDetector)
	defer client.CloseIdleConnections()
	checker, err := robots.New(client, robots.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	delays := map[string]time.Duration{}
	gate, err := NewRobotsGate(checker, func(host string, d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		delays[host] = d
	})
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse(s.URL)
	ctx := context.Background()
	if err := gate.Admit(ctx, base.JoinPath("public")); err != nil {
		t.Errorf("public page refused: %v", err)
	}
	err = gate.Admit(ctx, base.JoinPath("private", "x"))
	if reasonOf(err, ReasonGate) != ReasonRobots {
		t.Errorf("private page: %v, want a robots skip", err)
	}
	if d := delays[base.Host]; d != 2*time.Second {
		t.Errorf("Crawl-delay passed on = %v, want 2s", d)
	}
	checker.Close()
	if err := gate.Admit(ctx, base.JoinPath("public")); !errors.Is(err, robots.ErrClosed) || reasonOf(err, ReasonGate) != ReasonGate {
		t.Errorf("closed checker: %v, want ErrClosed reported as refused", err)
	}
}

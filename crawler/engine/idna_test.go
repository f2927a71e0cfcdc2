package engine_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/linkgraph/memory"
)

// An internationalised host name given as a seed is the same host as the
// IDNA form its pages' links resolve to: the whole site is crawled. No DNS
// here: the getter dials the test server whatever the name.
func TestIDNASeed(t *testing.T) {
	site := newTreeSite(12, 3)
	h := startHost(t, 37, nil, site)
	var mu sync.Mutex
	hosts := map[string]bool{}
	dialer := &net.Dialer{}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return dialer.DialContext(ctx, network, h.Listener.Addr().String())
	}}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		hosts[r.URL.Hostname()] = true
		mu.Unlock()
		return tr.RoundTrip(r)
	})}
	e, err := engine.New(engine.Options{Graph: memory.New(), FetchOptions: crawler.FetchOptions{URLGetter: client}})
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(h.Host)
	sum, err := e.Run(context.Background(), "http://bücher.example:"+port+"/0")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pages != 12 {
		t.Errorf("crawled %d pages, want 12: %v", sum.Pages, sum.Reasons)
	}
	site.fetchedOnce(t)
	for host := range hosts {
		if !strings.HasPrefix(host, "xn--") {
			t.Errorf("requested host %q, want the IDNA form", host)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

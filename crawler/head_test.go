package crawler

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func headSite(t *testing.T) (string, *hitLog) {
	s, hits := loopbackServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/img":
			w.Header().Set("Content-Type", "image/png")
			_, _ = io.WriteString(w, strings.Repeat("\x89PNG", 1000))
		case "/no-head":
			if r.Method == http.MethodHead {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			htmlPage(w, "page")
		case "/to-img":
			http.Redirect(w, r, "/img", http.StatusFound)
		default:
			htmlPage(w, "page")
		}
	})
	return s.URL, hits
}

// Non-HTML is skipped on the HEAD's word, without a GET; everything else
// is fetched with a GET after the HEAD, redirects included.
func TestHeadFirstGetter(t *testing.T) {
	cases := []struct {
		path     string
		kept     bool
		reason   Reason
		requests []string
	}{
		{path: "/img", reason: ReasonContentType, requests: []string{"HEAD /img"}},
		{path: "/page", kept: true, requests: []string{"HEAD /page", "GET /page"}},
		{path: "/no-head", kept: true, requests: []string{"HEAD /no-head", "GET /no-head"}},
		{path: "/to-img", reason: ReasonContentType, requests: []string{"HEAD /to-img", "GET /to-img", "HEAD /img"}},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			base, hits := headSite(t)
			cfg := loopbackConfig()
			client := NewURLGetter(cfg.PrivateNetworkDetector)
			t.Cleanup(client.CloseIdleConnections)
			g, err := NewHeadFirstGetter(client)
			if err != nil {
				t.Fatal(err)
			}
			cfg.URLGetter = g
			p, kept := fetchWith(t, cfg, base+c.path)
			if kept != c.kept || (!kept && p.outcome.reason != c.reason) {
				t.Fatalf("kept %v reason %v (%v), want %v %v", kept, p.outcome.reason, p.outcome.err, c.kept, c.reason)
			}
			if !kept && (p.outcome.bytes != 0 || p.ContentType != "image/png") {
				t.Errorf("skipped page: %d body bytes read, Content-Type %q", p.outcome.bytes, p.ContentType)
			}
			if got := hits.list(); !slices.Equal(got, c.requests) {
				t.Errorf("requests = %q, want %q", got, c.requests)
			}
		})
	}
}

// Requests other than GET go through untouched.
func TestHeadFirstGetterPassesOtherMethods(t *testing.T) {
	base, hits := headSite(t)
	client := NewURLGetter(loopbackConfig().PrivateNetworkDetector)
	defer client.CloseIdleConnections()
	g, err := NewHeadFirstGetter(client)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/img", strings.NewReader("x"))
	res, err := g.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got := hits.list(); !slices.Equal(got, []string{"POST /img"}) {
		t.Errorf("requests = %q", got)
	}
	if _, err := NewHeadFirstGetter(nil); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("NewHeadFirstGetter(nil) = %v, want ErrInvalidConfig", err)
	}
}

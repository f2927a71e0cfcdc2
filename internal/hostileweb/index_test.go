package hostileweb_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/linksrus/linksrus/internal/hostileweb"
)

func TestIndexLinksEveryRoute(t *testing.T) {
	s := start(t, smallOptions)
	resp, body := fetch(t, newClient(t, 5*time.Second), s.URL()+"/", 1<<20)
	wantContentType(t, resp, "text/html; charset=utf-8")
	linked := map[string]bool{}
	for _, h := range links(t, body) {
		linked[h] = true
	}
	for _, r := range s.Routes() {
		if r.Path == hostileweb.PathIndex {
			continue
		}
		if !linked[r.Path] && !linked[r.URL] {
			t.Errorf("index does not link route %s (%s)", r.Name, r.URL)
		}
	}
}

func TestRouteTable(t *testing.T) {
	s := start(t, smallOptions)
	names := map[string]bool{}
	traps := 0
	for _, r := range s.Routes() {
		if names[r.Name] {
			t.Errorf("route name %q repeated", r.Name)
		}
		names[r.Name] = true
		if r.Reason == "" || r.Trap == "" {
			t.Errorf("route %s lacks a reason or a description", r.Name)
		}
		if r.Reason != hostileweb.ReasonNone {
			traps++
		}
		switch {
		case r.Path == "" && r.URL != s.SilentURL():
			t.Errorf("route %s: no path, URL %s, want the silent listener", r.Name, r.URL)
		case r.Path != "" && r.URL != s.URL()+r.Path:
			t.Errorf("route %s: URL %s, want %s", r.Name, r.URL, s.URL()+r.Path)
		}
	}
	if traps != 15 {
		t.Errorf("%d traps in the table, want 15", traps)
	}
}

func TestOrdinaryPages(t *testing.T) {
	s := start(t, smallOptions)
	c := newClient(t, 5*time.Second)
	for i := 1; i <= hostileweb.NormalPages; i++ {
		url := s.URL() + "/pages/" + string(rune('0'+i))
		resp, body := fetch(t, c, url, 1<<20)
		if resp.StatusCode != http.StatusOK || len(links(t, body)) < 2 {
			t.Errorf("%s: status %d, %d links; want 200 with links", url, resp.StatusCode, len(links(t, body)))
		}
		if !strings.Contains(string(body), "Ordinary page") {
			t.Errorf("%s: no text", url)
		}
	}
	for _, p := range []string{"/pages/0", "/pages/6", "/nowhere"} {
		if resp, _ := fetch(t, c, s.URL()+p, 1<<10); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", p, resp.StatusCode)
		}
	}
}

func TestStartRejectsBadOptions(t *testing.T) {
	for name, o := range map[string]hostileweb.Options{
		"negative interval": {DripInterval: -time.Second},
		"negative bomb":     {GzipBombSize: -1},
		"huge bomb":         {GzipBombSize: 1 << 40},
		"negative hops":     {RedirectHops: -1},
		"negative links":    {ManyLinks: -1},
		"negative depth":    {NestingDepth: -1},
		"negative headers":  {HeaderBytes: -1},
		"negative robots":   {RobotsBytes: -1},
		"negative conns":    {MaxSilentConns: -1},
	} {
		s, err := hostileweb.Start(o)
		if !errors.Is(err, hostileweb.ErrInvalidOptions) {
			t.Errorf("%s: error = %v, want ErrInvalidOptions", name, err)
		}
		if s != nil {
			s.Close()
		}
	}
}

func TestOptionsDefaults(t *testing.T) {
	s := start(t, hostileweb.Options{})
	o := s.Options()
	if o.DripInterval != time.Second || o.GzipBombSize != 1<<30 || o.RedirectHops != 50 ||
		o.ManyLinks != 100_000 || o.NestingDepth != 100_000 || o.HeaderBytes != 12<<20 ||
		o.RobotsBytes != 64<<10 || o.MaxSilentConns != 256 {
		t.Errorf("defaults %+v differ from the documented ones", o)
	}
}

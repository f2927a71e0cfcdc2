package jsweb

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
)

//go:embed site
var site embed.FS

var shell = template.Must(template.ParseFS(site, "site/shell.html"))

// Options configure a Server. The zero value serves the site with
// probes of addresses no test may reach unless a browser's requests are
// intercepted: set both to loopback URLs to watch a browser that is not.
type Options struct {
	// Addr is the loopback address to listen on ("127.0.0.1" if empty):
	// 127.0.0.2 and up are other hosts to a crawler.
	Addr string
	// PrivateURL is what the script fetches as a private address
	// (default http://10.255.255.1/probe).
	PrivateURL string
	// DisallowedURL is what the script fetches on a host whose
	// robots.txt disallows it (see Disallowing; default
	// http://127.0.0.9:1/secret, where nothing listens).
	DisallowedURL string
	// Generated is how many pages /gen/ has (none if 0).
	Generated int
}

// Server is a running site; see the package documentation.
type Server struct {
	http *httptest.Server
	opts Options
	page map[string]page // the API's pages by route
	mu   sync.Mutex
	hits map[string]int
}

// page is what /api/page/ROUTE returns for a route.
type page struct {
	Title     string   `json:"title"`
	Text      string   `json:"text"`
	Links     []string `json:"links,omitempty"`
	Generated bool     `json:"generated,omitempty"`
}

// navigation is /api/nav.json: what the script builds the menu from.
var navigation = []struct {
	Href  string `json:"href"`
	Title string `json:"title"`
}{
	{"/", "Home"},
	{"/docs/intro", "Introduction"},
	{"/docs/install", "Installing"},
	{"/docs/config", "Configuring"},
	{"/endless.html", "A page that never settles"},
	{"/hog.html", "A page that eats memory"},
}

// Words found only in the text the script fetches after load, one a route
// (see LateWord).
var lateWords = map[string]string{
	"/":              "quokkahome",
	"/docs/intro":    "quokkaintro",
	"/docs/install":  "quokkainstall",
	"/docs/config":   "quokkaconfig",
	"/docs/shadow":   "quokkashadow",
	"/docs/scrolled": "quokkascrolled",
	"/docs/pushed":   "quokkapushed",
}

// Start serves the site on loopback until Close.
func Start(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1"
	}
	if opts.PrivateURL == "" {
		opts.PrivateURL = "http://10.255.255.1/probe"
	}
	if opts.DisallowedURL == "" {
		opts.DisallowedURL = "http://127.0.0.9:1/secret"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(opts.Addr, "0"))
	if err != nil {
		return nil, fmt.Errorf("jsweb: listen on %s: %w", opts.Addr, err)
	}
	s := &Server{opts: opts, page: make(map[string]page), hits: make(map[string]int)}
	for route, word := range lateWords {
		key := route
		if route == "/" {
			key = "/home"
		}
		s.page[key] = page{Title: "Quokka " + strings.TrimPrefix(route, "/docs/"),
			Text: fmt.Sprintf("This text arrives after the page loads: %s.", word)}
	}
	for i := range opts.Generated {
		p := page{Title: fmt.Sprintf("Generated page %d", i), Generated: true,
			Text: fmt.Sprintf("Generated page %d of %d, rendered from JSON: numbat%d.", i, opts.Generated, i)}
		// Three links a page, so that every page is reached from /gen/0
		// within a few steps and most are linked several times.
		for _, to := range []int{i + 1, 2*i + 1, 2*i + 2} {
			if to < opts.Generated {
				p.Links = append(p.Links, fmt.Sprintf("/gen/%d", to))
			}
		}
		s.page[fmt.Sprintf("/gen/%d", i)] = p
	}
	s.http = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.http.Listener.Close()
	s.http.Listener = ln
	s.http.Start()
	return s, nil
}

// URL is the site's root, without a trailing slash.
func (s *Server) URL() string { return s.http.URL }

// Close stops serving and waits for the requests under way.
func (s *Server) Close() { s.http.Close() }

// Requests returns how many requests path has had.
func (s *Server) Requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// Pages returns the paths a person clicking through the site reaches
// (what a crawl that renders must find), sorted: the navigation's, the
// shadow root's, the one added on scroll and the one pushState sets, and
// the generated pages.
func (s *Server) Pages() []string {
	var out []string
	for route := range lateWords {
		out = append(out, route)
	}
	out = append(out, "/endless.html", "/hog.html")
	for i := range s.opts.Generated {
		out = append(out, fmt.Sprintf("/gen/%d", i))
	}
	slices.Sort(out)
	return out
}

// Shell returns the paths a crawl of the site from "/" finds when it does
// not run scripts: the home page alone, which links nothing.
func Shell() []string { return []string{"/"} }

// LateWord returns the word that only route's text fetched after load
// holds, or "" for a route that has none.
func LateWord(route string) string { return lateWords[route] }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path]++
	s.mu.Unlock()
	path := r.URL.Path
	switch {
	case path == "/robots.txt":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nAllow: /\n")
	case path == "/app.js":
		serveFile(w, "site/app.js", "text/javascript")
	case path == "/endless.html", path == "/hog.html":
		serveFile(w, "site"+path, "text/html; charset=utf-8")
	case path == "/api/nav.json":
		serveJSON(w, navigation)
	case path == "/api/tick":
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(path, "/api/page/"):
		p, ok := s.page[strings.TrimPrefix(path, "/api/page")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		serveJSON(w, p)
	case path == "/" || s.isRoute(path):
		var b bytes.Buffer
		cfg := map[string]string{"api": "/api", "private": s.opts.PrivateURL, "disallowed": s.opts.DisallowedURL}
		if err := shell.Execute(&b, cfg); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b.Bytes())
	default:
		http.NotFound(w, r)
	}
}

// isRoute reports whether path is a route of the application, which the
// shell serves (the script renders it).
func (s *Server) isRoute(path string) bool {
	if _, ok := lateWords[path]; ok {
		return true
	}
	if n, ok := strings.CutPrefix(path, "/gen/"); ok {
		i, err := strconv.Atoi(n)
		return err == nil && i >= 0 && i < s.opts.Generated
	}
	return false
}

func serveFile(w http.ResponseWriter, name, contentType string) {
	b, err := site.ReadFile(name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Write(b)
}

func serveJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// Disallowing serves, on addr (a loopback address), a host whose
// robots.txt disallows every path, counting the requests for anything but
// robots.txt: a crawl that keeps robots.txt for a browser's requests
// leaves it at zero. Close it with the returned function.
func Disallowing(addr string) (url string, requests func() int, closeFn func(), err error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	if err != nil {
		return "", nil, nil, fmt.Errorf("jsweb: listen on %s: %w", addr, err)
	}
	var mu sync.Mutex
	n := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow: /\n")
			return
		}
		mu.Lock()
		n++
		mu.Unlock()
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, "disallowed")
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	return srv.URL, func() int { mu.Lock(); defer mu.Unlock(); return n }, srv.Close, nil
}

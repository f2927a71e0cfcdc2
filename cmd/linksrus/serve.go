package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/searchweb"
	"github.com/linksrus/linksrus/textindex"
)

func runServe(ctx context.Context, env *environment, args []string) error {
	fs := newFlagSet(env, "serve", "serve [flags]")
	var sf storeFlags
	sf.register(fs, env)
	listen := fs.String("listen", "127.0.0.1:8080", "serve the search pages on `ADDR`")
	name := fs.String("name", searchweb.DefaultName, "the site's `NAME`, in page titles and the browser's search engine list")
	timeout := fs.Duration("timeout", searchweb.DefaultTimeout, "give up on a search that takes longer than `D`")
	baseURL := fs.String("base-url", "", "the absolute http(s) `URL` browsers reach the pages at, such as https://search.example.com "+
		"behind a proxy, named in the OpenSearch description (never the Host header a request brings); default: the --listen address")
	rest, err := parseFlags(env, fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError(env, fs, "unexpected arguments: %v", rest)
	}
	if *timeout <= 0 {
		return usageError(env, fs, "--timeout must be positive, got %v", *timeout)
	}
	if sf.index == "none" {
		return usageError(env, fs, "--index none: there is no index to search")
	}
	if *baseURL != "" {
		base, err := searchweb.ParseBaseURL(*baseURL)
		if err != nil {
			return usageError(env, fs, "--base-url: %v", err)
		}
		*baseURL = base
	}
	idx, err := openIndexForReading(ctx, &sf)
	if err != nil {
		return err
	}
	defer idx.Close()
	status, closeStatus, err := statusSource(ctx, &sf, idx)
	if err != nil {
		return err
	}
	defer closeStatus()

	searcher, ok := idx.(searchweb.Searcher)
	if !ok {
		return fmt.Errorf("serve: the index %T cannot be searched with a deadline", idx)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	defer ln.Close()
	listenURL, allInterfaces := addrURL(ln.Addr())
	base := *baseURL
	if base == "" {
		base = listenURL
		if allInterfaces {
			fmt.Fprintf(env.stderr, "linksrus serve: the OpenSearch description names %s/: "+
				"pass --base-url with the URL browsers elsewhere reach this server at\n", base)
		}
	}
	log := slog.New(slog.NewTextHandler(env.stderr, nil))
	h, err := searchweb.New(searchweb.Options{Index: searcher, Status: status, Name: *name, BaseURL: base, Timeout: *timeout, Logger: log})
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      *timeout + 10*time.Second,
		IdleTimeout:       time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	if base != listenURL {
		fmt.Fprintf(env.stderr, "serving the search page on %s/ as %s/ (interrupt to stop)\n", listenURL, base)
	} else {
		fmt.Fprintf(env.stderr, "serving the search page on %s/ (interrupt to stop)\n", listenURL)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-env.interrupts:
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		return fmt.Errorf("serve: shut down: %w", err)
	}
	<-served
	return nil
}

// addrURL is the http URL of a listening address. An unspecified address
// (all interfaces, which allInterfaces reports) is named localhost, where
// it can be reached for sure.
func addrURL(addr net.Addr) (u string, allInterfaces bool) {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String(), false
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host, allInterfaces = "localhost", true
	}
	return "http://" + net.JoinHostPort(host, port), allInterfaces
}

// openIndexForReading opens the index to search it. The embedded index is
// opened read-only, which works while a crawl writes to it and in a
// directory this process may not write to.
func openIndexForReading(ctx context.Context, sf *storeFlags) (textindex.Indexer, error) {
	if err := sf.check(); err != nil {
		return nil, err
	}
	u, err := sf.indexURL()
	if err != nil {
		return nil, err
	}
	switch {
	case sf.index == "":
		path := filepath.Join(sf.data, "index.db")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no index in %s (run \"linksrus crawl\" first, or pass --data, --index)", sf.data)
		}
		u += "?mode=ro"
	case hasScheme(u, "sqlite") && !strings.Contains(u, "?"):
		// An SQLite index named on the command line is read the same
		// way; a mistyped path is then an error, not a new empty index.
		u += "?mode=ro"
	}
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	idx, err := textindex.Open(ctx, u)
	if err != nil {
		return nil, indexOpenError(err)
	}
	return idx, nil
}

// statusSource returns where the status page's figures come from. A
// shared database is asked directly. The embedded graph is not opened at
// all: its lock is exclusive, and holding it, even to count, could stop a
// crawl from starting; the crawl records its figures in a status file in
// the data directory instead, and the index is counted live.
func statusSource(ctx context.Context, sf *storeFlags, idx textindex.Indexer) (func(context.Context) (searchweb.Status, error), func(), error) {
	if sf.embeddedGraph() {
		path := statusFilePath(sf.data)
		if sf.graph != "" {
			path = "" // a graph elsewhere: no status file to read
		}
		return func(ctx context.Context) (searchweb.Status, error) {
			st := readStatusFile(path)
			if n, ok, err := textindex.Count(ctx, idx); err != nil {
				return st, err
			} else if ok {
				st.Indexed = n
			}
			return st, nil
		}, func() {}, nil
	}
	gu, err := sf.graphURL()
	if err != nil {
		return nil, nil, err
	}
	openCtx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	g, err := linkgraph.Open(openCtx, gu)
	if err != nil {
		return nil, nil, err
	}
	c := &statusCache{ttl: 10 * time.Second, compute: func(ctx context.Context) (searchweb.Status, error) {
		st, err := graphStatus(ctx, g, idx)
		st.Source = "the link graph"
		return st, err
	}}
	return c.get, func() { g.Close() }, nil
}

// statusCache keeps figures for ttl, so that reloading the status page
// does not walk a large graph each time.
type statusCache struct {
	ttl     time.Duration
	compute func(context.Context) (searchweb.Status, error)

	mu   sync.Mutex
	last searchweb.Status
	at   time.Time
}

func (c *statusCache) get(ctx context.Context) (searchweb.Status, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < c.ttl {
		return c.last, nil
	}
	st, err := c.compute(ctx)
	if err != nil {
		return st, err
	}
	c.last, c.at = st, time.Now()
	return st, nil
}

// graphStatus counts the links of g once, and the documents of idx.
func graphStatus(ctx context.Context, g linkgraph.Graph, idx textindex.Indexer) (searchweb.Status, error) {
	st := searchweb.Status{Known: true, AsOf: time.Now().UTC()}
	it, err := g.Links(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if err != nil {
		return st, fmt.Errorf("status: list links: %w", err)
	}
	for it.Next() {
		l := it.Link()
		st.URLs++
		if st.URLs%4096 == 0 && ctx.Err() != nil {
			break
		}
		if l.RetrievedAt.IsZero() {
			st.NotFetched++
			continue
		}
		st.Crawled++
		if l.RetrievedAt.After(st.LastCrawl) {
			st.LastCrawl = l.RetrievedAt
		}
	}
	if err := errors.Join(it.Error(), it.Close(), ctx.Err()); err != nil {
		return st, fmt.Errorf("status: list links: %w", err)
	}
	if idx != nil {
		n, _, err := textindex.Count(ctx, idx)
		if err != nil {
			return st, fmt.Errorf("status: count indexed pages: %w", err)
		}
		st.Indexed = n
	}
	return st, nil
}

// statusFileName is the file in the data directory where a crawl records
// its figures for `linksrus serve` (see statusSource).
const statusFileName = "crawl-status.json"

func statusFilePath(dataDir string) string { return filepath.Join(dataDir, statusFileName) }

// staleAfter is how long a crawl's "running" record is believed without
// an update; the crawl rewrites it every statusInterval.
const (
	statusInterval = 5 * time.Second
	staleAfter     = 4 * statusInterval
)

// readStatusFile reads the figures a crawl recorded; a missing or broken
// file gives figures marked unknown.
func readStatusFile(path string) searchweb.Status {
	if path == "" {
		return searchweb.Status{}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return searchweb.Status{}
	}
	var st searchweb.Status
	if err := json.Unmarshal(b, &st); err != nil {
		return searchweb.Status{}
	}
	st.Source = "the figures the last crawl recorded"
	if st.Crawling && time.Since(st.AsOf) > staleAfter {
		// Killed without recording its end.
		st.Crawling = false
		st.Source = "the figures recorded by a crawl that stopped without finishing"
	}
	return st
}

// writeStatusFile records st for readers, atomically: a reader sees the
// old file or the new one, never half of one.
func writeStatusFile(path string, st searchweb.Status) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".crawl-status-*")
	if err != nil {
		return fmt.Errorf("write status file: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	// Readable by a server running as another user, as the index is.
	cerr := tmp.Chmod(0o644)
	if err := errors.Join(werr, cerr, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write status file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write status file: %w", err)
	}
	return nil
}

// statusRecorder keeps the status file of an embedded data directory
// current while a crawl runs, and records the graph's figures at its end,
// for `linksrus serve`, which cannot open the graph meanwhile.
type statusRecorder struct {
	env  *environment
	path string
	st   searchweb.Status
	stop chan struct{}
	done chan struct{}
}

// startStatusRecorder starts recording run; it records nothing when the
// graph is not the data directory's.
func startStatusRecorder(env *environment, sf *storeFlags, run interface{ Progress() engine.Progress }) *statusRecorder {
	r := &statusRecorder{env: env}
	if sf.graph != "" || sf.data == "" {
		return r
	}
	r.path = statusFilePath(sf.data)
	r.st = readStatusFile(r.path)
	r.st.Crawling, r.st.RunPages, r.st.Source = true, 0, ""
	r.write()
	r.stop, r.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(r.done)
		t := time.NewTicker(statusInterval)
		defer t.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-t.C:
				r.st.RunPages = uint64(max(run.Progress().Pages, 0))
				r.write()
			}
		}
	}()
	return r
}

func (r *statusRecorder) write() {
	r.st.AsOf = time.Now().UTC()
	if err := writeStatusFile(r.path, r.st); err != nil {
		fmt.Fprintf(r.env.stderr, "linksrus: %v (the search page's status will lag)\n", err)
	}
}

// finish records the figures of the graph and index at the crawl's end.
func (r *statusRecorder) finish(ctx context.Context, st *stores) {
	if r.path == "" {
		return
	}
	close(r.stop)
	<-r.done
	figures, err := graphStatus(ctx, st.graph, st.index)
	if err != nil {
		fmt.Fprintf(r.env.stderr, "linksrus: %v (the search page's status will lag)\n", err)
		figures = r.st
	}
	figures.Crawling, figures.RunPages, figures.Source = false, 0, ""
	figures.LastCrawl = time.Now().UTC()
	r.st = figures
	r.write()
}

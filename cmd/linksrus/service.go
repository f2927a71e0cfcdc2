package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/linksrus/linksrus/crawler/engine"
)

// service is what --every and --listen add to a crawl: repeated runs and an
// HTTP endpoint with /healthz and Prometheus-format /metrics.
type service struct {
	env *environment

	mu      sync.Mutex
	current *engine.Run
	// Totals over the finished runs.
	runs, pages, errs, skipped, bytes int64
	sitemaps, sitemapURLs             int64
	lastErr                           error
	lastEnd                           time.Time
}

func newService(env *environment) *service {
	return &service{env: env}
}

func (s *service) begin(r *engine.Run) {
	s.mu.Lock()
	s.current = r
	s.mu.Unlock()
}

func (s *service) end(sum *engine.Summary) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.current = nil
	s.runs++
	if sum != nil {
		s.pages += sum.Pages
		s.errs += sum.Errors
		s.skipped += sum.Skipped
		s.bytes += sum.Bytes
		s.sitemaps += sum.Sitemaps
		s.sitemapURLs += sum.SitemapURLs
	}
	s.lastEnd = time.Now()
}

// loop runs crawl now and then every interval until ctx is done or an
// interrupt arrives. A failed run is logged and retried at the next tick, as
// a service should; only an interrupt ends the loop, and since stopping is
// how a service ends, it ends without error.
func (s *service) loop(ctx context.Context, every time.Duration, crawl func(context.Context) error) error {
	log := slog.New(slog.NewTextHandler(s.env.stderr, nil))
	for {
		err := crawl(ctx)
		s.mu.Lock()
		s.lastErr = err
		s.mu.Unlock()
		switch {
		case errors.Is(err, errInterrupted):
			return nil
		case err != nil:
			log.Error("crawl failed; retrying at the next run", "err", err)
		}
		log.Info("next crawl scheduled", "in", every.String())
		t := time.NewTimer(every)
		select {
		case <-t.C:
		case <-s.env.interrupts:
			t.Stop()
			return nil
		case <-ctx.Done():
			t.Stop()
			return nil
		}
	}
}

// serve starts the HTTP endpoint on addr and returns a function stopping it.
func (s *service) serve(addr string) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /metrics", s.metrics)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}

func (s *service) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	s.mu.Lock()
	lastErr := s.lastErr
	s.mu.Unlock()
	if lastErr != nil && !errors.Is(lastErr, errInterrupted) {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, "last crawl failed: %v\n", lastErr)
		return
	}
	fmt.Fprintln(w, "ok")
}

// metrics writes the Prometheus text exposition format by hand: a handful of
// counters do not justify a client library.
func (s *service) metrics(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	pages, errs, skipped, bytes, runs := s.pages, s.errs, s.skipped, s.bytes, s.runs
	sitemaps, sitemapURLs := s.sitemaps, s.sitemapURLs
	var queued, inFlight int
	running := 0
	reasons := map[string]int64{}
	if r := s.current; r != nil {
		running = 1
		p := r.Progress()
		pages += p.Pages
		errs += p.Errors
		skipped += p.Skipped
		bytes += p.Bytes
		sitemaps += p.Sitemaps
		sitemapURLs += p.SitemapURLs
		queued, inFlight = p.Queued, p.InFlight
		reasons = p.Reasons
	}
	s.mu.Unlock()

	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	counter := func(name, help string, v int64) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", name, help, name, name, v)
	}
	gauge := func(name, help string, v int64) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s gauge\n%s %d\n", name, help, name, name, v)
	}
	counter("linksrus_crawl_runs_total", "Crawl runs finished.", runs)
	counter("linksrus_pages_crawled_total", "Pages fetched and processed.", pages)
	counter("linksrus_errors_total", "Pages that should have been crawled and were not (fetch errors, error statuses, redirect loops, seeds refused).", errs)
	counter("linksrus_pages_skipped_total", "Pages skipped (robots, content type, size...).", skipped)
	counter("linksrus_bytes_fetched_total", "Body bytes read.", bytes)
	counter("linksrus_sitemaps_read_total", "Sitemap files read.", sitemaps)
	counter("linksrus_sitemap_urls_total", "URLs in scope listed by the sitemaps read.", sitemapURLs)
	gauge("linksrus_crawl_running", "1 while a crawl runs.", int64(running))
	gauge("linksrus_frontier_queued", "URLs queued in the running crawl.", int64(queued))
	gauge("linksrus_frontier_in_flight", "Pages in flight in the running crawl.", int64(inFlight))
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(w, "# HELP linksrus_run_outcomes Outcomes of the running crawl by reason.\n# TYPE linksrus_run_outcomes gauge\n")
	for _, k := range keys {
		fmt.Fprintf(w, "linksrus_run_outcomes{reason=\"%s\"} %d\n", escapeLabel(k), reasons[k])
	}
}

func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

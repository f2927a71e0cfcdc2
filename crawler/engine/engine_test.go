package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/pipeline"
	textmemory "github.com/linksrus/linksrus/textindex/memory"
)

// treeSite serves pages /0 .. /n-1, page i linking to pages i*fan+1 ..
// i*fan+fan, and counts every page request.
type treeSite struct {
	n, fan int
	mu     sync.Mutex
	hits   []int
}

func newTreeSite(n, fan int) *treeSite { return &treeSite{n: n, fan: fan, hits: make([]int, n)} }

func (s *treeSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		return
	}
	var i int
	if _, err := fmt.Sscanf(r.URL.Path, "/%d", &i); err != nil || i < 0 || i >= s.n {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.hits[i]++
	s.mu.Unlock()
	var b strings.Builder
	b.WriteString("<html><body>")
	for c := i*s.fan + 1; c <= i*s.fan+s.fan && c < s.n; c++ {
		fmt.Fprintf(&b, `<a href="/%d">%d</a>`, c, c)
	}
	b.WriteString("</body></html>")
	w.Header().Set("Content-Type", "text/html")
	_, _ = w.Write([]byte(b.String()))
}

// fetchedOnce checks that every page was requested exactly once.
func (s *treeSite) fetchedOnce(t *testing.T) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	bad := 0
	for i, h := range s.hits {
		if h != 1 {
			if bad < 5 {
				t.Errorf("page %d requested %d times", i, h)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d pages not requested exactly once", bad, s.n)
	}
}

// Two whole crawls at once in one process, with their own stores, each
// complete and exact; goleak (TestMain) checks nothing is left running.
func TestConcurrentRuns(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 2 {
		site := newTreeSite(300, 4)
		h := startHost(t, 30+i, &requestLog{}, site)
		g, idx := memory.New(), textmemory.New()
		e, err := engine.New(engine.Options{Graph: g, Index: idx, FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback()}, PerHost: 4})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sum, err := e.Run(context.Background(), h.URL+"/0")
			if err != nil {
				t.Error(err)
				return
			}
			if sum.Pages != 300 || sum.Errors != 0 {
				t.Errorf("run %d: %d pages %d errors", i, sum.Pages, sum.Errors)
			}
			if sum.Active <= 0 || sum.Active > sum.Elapsed {
				t.Errorf("run %d: active %v of %v elapsed", i, sum.Active, sum.Elapsed)
			}
			site.fetchedOnce(t)
		}()
	}
	wg.Wait()
}

// The frontier holds at most MaxQueued links in memory; the rest waits in
// the spill file and comes back, depth and all: every page is still
// fetched once, and MaxDepth still holds.
func TestBoundedFrontier(t *testing.T) {
	site := newTreeSite(5000, 20)
	h := startHost(t, 32, &requestLog{}, site)
	e, err := engine.New(engine.Options{Graph: memory.New(), FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback()}, PerHost: 8, MaxQueued: 100})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.Run(context.Background(), h.URL+"/0")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pages != 5000 {
		t.Errorf("crawled %d pages, want 5000", sum.Pages)
	}
	site.fetchedOnce(t)

	// Depth: /0 is depth 0, /1-/20 depth 1, /21-/420 depth 2.
	site2 := newTreeSite(5000, 20)
	h2 := startHost(t, 33, &requestLog{}, site2)
	e2, err := engine.New(engine.Options{Graph: memory.New(), FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback()}, PerHost: 8, MaxQueued: 50, MaxDepth: 2})
	if err != nil {
		t.Fatal(err)
	}
	sum, err = e2.Run(context.Background(), h2.URL+"/0")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pages != 421 {
		t.Errorf("crawled %d pages to depth 2, want 421", sum.Pages)
	}
}

// Stop lets the pages in flight finish and leaves the rest for the next
// run, which resumes without fetching anything twice.
func TestStopAndResume(t *testing.T) {
	site := newTreeSite(400, 5)
	h := startHost(t, 34, &requestLog{}, site)
	g := memory.New()
	var outcomes sync.Map
	dup := make(chan uuid.UUID, 10)
	opts := engine.Options{
		Graph:        g,
		FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback()},
		OnOutcome: func(o crawler.Outcome) {
			if _, loaded := outcomes.LoadOrStore(o.LinkID, true); loaded {
				select {
				case dup <- o.LinkID:
				default:
				}
			}
		},
	}
	e, err := engine.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	run, err := e.Start(context.Background(), h.URL+"/0")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return run.Progress().Pages >= 50 })
	run.Stop()
	first, err := run.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !first.Stopped || first.Pages >= 400 || first.Queued == 0 {
		t.Fatalf("first run: %+v", first)
	}
	outcomes = sync.Map{}
	if _, err := e.Run(context.Background()); err == nil { // no seeds: resume
		t.Fatal("a resume without seeds on the seeds' host needs AnyHost or Domains")
	}
	opts.AnyHost = true
	e, err = engine.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	second, err := e.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if first.Pages+second.Pages != 400 {
		t.Errorf("%d + %d pages, want 400", first.Pages, second.Pages)
	}
	site.fetchedOnce(t)
	select {
	case id := <-dup:
		t.Errorf("outcome of %v reported twice", id)
	default:
	}
	third, err := e.Run(context.Background(), h.URL+"/0")
	if err != nil {
		t.Fatal(err)
	}
	if third.Handed != 0 {
		t.Errorf("a third run found %d pages due", third.Handed)
	}
}

// Cancelling the context while the frontier waits on a host's delay ends
// the run at once, reporting every page handed out, and leaves nothing
// running.
func TestCancelWhileWaiting(t *testing.T) {
	site := newTreeSite(50, 10)
	h := startHost(t, 35, &requestLog{}, site)
	var reported sync.Map
	e, err := engine.New(engine.Options{
		Graph:        memory.New(),
		FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback()},
		Delay:        time.Hour,
		IgnoreRobots: true,
		OnOutcome:    func(o crawler.Outcome) { reported.Store(o.LinkID, o.Reason) },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	run, err := e.Start(ctx, h.URL+"/0")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return run.Progress().Pages >= 1 })
	start := time.Now()
	cancel()
	sum, err := run.Wait()
	if waited := time.Since(start); waited > 10*time.Second {
		t.Errorf("Wait took %v after cancel", waited)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if !sum.Canceled || sum.Pages != 1 {
		t.Errorf("summary %+v", sum)
	}
}

func TestInvalidSeedsAndOptions(t *testing.T) {
	if _, err := engine.New(engine.Options{}); !errors.Is(err, engine.ErrOptions) {
		t.Errorf("no graph: %v", err)
	}
	if _, err := engine.New(engine.Options{Graph: memory.New(), PerHost: -1}); !errors.Is(err, engine.ErrOptions) {
		t.Errorf("negative PerHost: %v", err)
	}
	e, err := engine.New(engine.Options{Graph: memory.New()})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"ftp://x/", "/relative", "http://", "http://[::1"} {
		if _, err := e.Run(context.Background(), s); err == nil {
			t.Errorf("seed %q accepted", s)
		}
	}
	if _, err = engine.New(engine.Options{Graph: memory.New(), Domains: []string{""}}); !errors.Is(err, engine.ErrOptions) {
		t.Errorf("an empty domain: %v", err)
	}
	if err := (engine.Options{Include: []string{"("}}).Check(); !errors.Is(err, engine.ErrOptions) {
		t.Errorf("a bad pattern: %v", err)
	}
}

// Seeds are normalised as links are: a seed spelt differently from the
// links to it is one page, fetched once.
// The options' mistakes are errors that name the setting, by its path
// from the struct that holds it, and wrap ErrOptions and a
// *crawler.OptionError: a program reports them in its own terms (the
// command names its flags) without editing the message.
func TestOptionErrorsNameTheSetting(t *testing.T) {
	g := memory.New()
	for _, tc := range []struct {
		opts  engine.Options
		field string
		value any
		text  string
	}{
		{engine.Options{}, "Options.Graph", nil, "engine: invalid options: Options.Graph is required"},
		{engine.Options{Graph: g, PerHost: -1}, "Options.PerHost", -1, "engine: invalid options: Options.PerHost: -1 is negative"},
		{engine.Options{Graph: g, MaxDepth: -2}, "Options.MaxDepth", -2, ""},
		{engine.Options{Graph: g, MaxPages: -1}, "Options.MaxPages", -1, ""},
		{engine.Options{Graph: g, MaxQueued: -1}, "Options.MaxQueued", -1, ""},
		{engine.Options{Graph: g, MaxSeen: -1}, "Options.MaxSeen", -1, ""},
		{engine.Options{Graph: g, Referrers: -1}, "Options.Referrers", -1, ""},
		{engine.Options{Graph: g, Delay: -time.Second}, "Options.Delay", -time.Second, "engine: invalid options: Options.Delay: -1s is negative"},
		{engine.Options{Graph: g, MaxCrawlDelay: -time.Second}, "Options.MaxCrawlDelay", -time.Second, ""},
		{engine.Options{Graph: g, RecrawlAfter: -time.Second}, "Options.RecrawlAfter", -time.Second, ""},
		{engine.Options{Graph: g, Partition: &engine.Partition{Idle: -1}}, "Options.Partition.Idle", time.Duration(-1), ""},
		{engine.Options{Graph: g, Shared: &engine.Shared{}}, "Options.Shared.Queue", nil, "engine: invalid options: Options.Shared.Queue is required unless the Graph keeps one (workqueue.Provider, such as a PostgreSQL graph); *memory.Graph does not"},
		{engine.Options{Graph: g, Shared: &engine.Shared{LeaseTTL: 10 * time.Millisecond}}, "Options.Shared.LeaseTTL", 10 * time.Millisecond, "engine: invalid options: Options.Shared.LeaseTTL: 10ms is below 100ms"},
		{engine.Options{Graph: g, Shared: &engine.Shared{Idle: -1}}, "Options.Shared.Idle", time.Duration(-1), ""},
		{engine.Options{Graph: g, Shared: &engine.Shared{MaxHosts: -1}}, "Options.Shared.MaxHosts", -1, ""},
		{engine.Options{Graph: g, Shared: &engine.Shared{}, Partition: &engine.Partition{}}, "Options.Shared", nil, "engine: invalid options: Options.Shared and Options.Partition exclude each other"},
		{engine.Options{Graph: g, Domains: []string{"example.com", ""}}, "Options.Domains", "", `engine: invalid options: Options.Domains: "" is not a domain`},
		{engine.Options{Graph: g, Include: []string{"("}}, "Options.Include", "(", "engine: invalid options: Options.Include: \"(\" is not a regular expression: error parsing regexp: missing closing ): `(`"},
		{engine.Options{Graph: g, Exclude: []string{"x", "["}}, "Options.Exclude", "[", ""},
		{engine.Options{Graph: g, FetchOptions: crawler.FetchOptions{Workers: -1}}, "FetchOptions.Workers", -1, "engine: invalid options: FetchOptions.Workers: -1 is negative"},
		{engine.Options{Graph: g, FetchOptions: crawler.FetchOptions{MaxBodyBytes: -1}}, "FetchOptions.MaxBodyBytes", int64(-1), ""},
		{engine.Options{Graph: g, FetchOptions: crawler.FetchOptions{FetchTimeout: -1}}, "FetchOptions.FetchTimeout", time.Duration(-1), ""},
		{engine.Options{Graph: g, FetchOptions: crawler.FetchOptions{Retry: crawler.RetryPolicy{MaxRetryAfter: -1}}}, "FetchOptions.Retry.MaxRetryAfter", time.Duration(-1), ""},
		// Settings passed to the crawler as they are, checked as New is
		// called rather than when a run starts.
		{engine.Options{Graph: g, StoreBatchSize: -1}, "Config.StoreBatchSize", -1, ""},
		{engine.Options{Graph: g, Processors: []pipeline.Processor{nil}}, "Config.Processors[0]", nil, ""},
	} {
		t.Run(tc.field, func(t *testing.T) {
			_, err := engine.New(tc.opts)
			var oe *crawler.OptionError
			if !errors.Is(err, engine.ErrOptions) || !errors.Is(err, crawler.ErrInvalidConfig) || !errors.As(err, &oe) {
				t.Fatalf("New = %v, want ErrOptions and a *crawler.OptionError", err)
			}
			if oe.Field != tc.field || oe.Value != tc.value || (tc.text != "" && err.Error() != tc.text) {
				t.Errorf("New = %q (%+v), want Field %q, Value %v, text %q", err, *oe, tc.field, tc.value, tc.text)
			}
			if tc.field == "Options.Graph" || tc.field == "Options.Shared.Queue" {
				return // Check leaves out the stores, which only New needs
			}
			if cerr := tc.opts.Check(); cerr == nil || cerr.Error() != err.Error() {
				t.Errorf("Check = %v, want %v", cerr, err)
			}
		})
	}
}

func TestSeedsNormalised(t *testing.T) {
	site := newTreeSite(10, 3)
	h := startHost(t, 36, &requestLog{}, site)
	e, err := engine.New(engine.Options{Graph: memory.New(), FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback()}})
	if err != nil {
		t.Fatal(err)
	}
	seed := strings.Replace(h.URL, "http://", "HTTP://", 1) + "/x/../0#top"
	sum, err := e.Run(context.Background(), seed)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pages != 10 {
		t.Errorf("crawled %d pages, want 10", sum.Pages)
	}
	site.fetchedOnce(t)
}

// waitFor polls cond for up to a minute.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in a minute")
		}
		time.Sleep(time.Millisecond)
	}
}

// cyclicSite serves pages /0 .. /n-1, page i linking to i+1, 2i+1 and i/2,
// so that most pages are linked from several others.
type cyclicSite struct{ *treeSite }

func (s cyclicSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var i int
	if _, err := fmt.Sscanf(r.URL.Path, "/%d", &i); err != nil || i < 0 || i >= s.n {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.hits[i]++
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html")
	for _, j := range []int{i + 1, 2*i + 1, i / 2} {
		if j < s.n {
			fmt.Fprintf(w, `<a href="/%d">%d</a> `, j, j)
		}
	}
}

// With the seen-set far too small, links found on several pages are queued
// again, yet no page is fetched twice: a copy is skipped while the other
// is in flight or once it is crawled.
func TestSeenSetOverflow(t *testing.T) {
	site := cyclicSite{newTreeSite(600, 0)}
	h := startHost(t, 39, nil, site)
	e, err := engine.New(engine.Options{Graph: memory.New(), FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback()}, PerHost: 8, MaxSeen: 20, IgnoreRobots: true})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.Run(context.Background(), h.URL+"/0")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pages != 600 {
		t.Errorf("crawled %d pages, want 600", sum.Pages)
	}
	site.fetchedOnce(t)
}

// A panic in the caller's OnOutcome neither takes the process down nor
// leaves the run waiting for the page: the run ends with the panic as its
// error.
func TestOnOutcomePanicEndsRun(t *testing.T) {
	site := exampleSite()
	defer site.Close()
	e, err := engine.New(engine.Options{
		Graph:        memory.New(),
		FetchOptions: crawler.FetchOptions{PrivateNetworkDetector: loopback()},
		OnOutcome: func(o crawler.Outcome) {
			if strings.HasSuffix(o.URL, "/a") {
				panic("hook failed")
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = e.Run(ctx, site.URL+"/")
	var pe *pipeline.PanicError
	if !errors.As(err, &pe) || ctx.Err() != nil {
		t.Fatalf("Run: %v (context %v), want the hook's panic, before the deadline", err, ctx.Err())
	}
}

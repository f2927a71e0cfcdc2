package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/crawler/robots"
	"github.com/linksrus/linksrus/crawler/workqueue"
	"github.com/linksrus/linksrus/internal/pgtest"
	"github.com/linksrus/linksrus/linkgraph/memory"
	"github.com/linksrus/linksrus/linkgraph/postgres"
)

// sharedSite is a site spread over several loopback hosts: each host has
// pages /0 … /n-1, every page links to the next two of its host and its
// root to every other host's root. Requests are logged per host, with the
// process (X-Worker header) that sent them.
type sharedSite struct {
	log   *requestLog
	hosts []*hostServer

	mu  sync.Mutex
	by  map[string]map[string]int // host+path → worker → GETs
	gap time.Duration             // each page answers after this
}

func newSharedSite(t *testing.T, hosts, pages int, gap time.Duration) *sharedSite {
	s := &sharedSite{log: &requestLog{}, by: make(map[string]map[string]int), gap: gap}
	for i := range hosts {
		n := 2 + i
		var self *hostServer
		self = startHost(t, n, s.log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/robots.txt":
				fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
				return
			case "/sitemap.xml": // none, and not a page
				http.NotFound(w, r)
				return
			}
			if r.Method == http.MethodGet {
				s.mu.Lock()
				key := self.Host + r.URL.Path
				if s.by[key] == nil {
					s.by[key] = make(map[string]int)
				}
				s.by[key][r.Header.Get("X-Worker")]++
				s.mu.Unlock()
			}
			time.Sleep(s.gap)
			p, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
			if err != nil || p >= pages {
				http.NotFound(w, r)
				return
			}
			var b strings.Builder
			for _, q := range []int{p + 1, p + 2} {
				if q < pages {
					fmt.Fprintf(&b, `<a href="/%d">%d</a> `, q, q)
				}
			}
			b.WriteString(`<a href="/private">no</a> `)
			if p == 0 {
				for _, o := range s.hosts {
					fmt.Fprintf(&b, `<a href="%s/0">other</a> `, o.URL)
				}
			}
			htmlPage(w, b.String())
		}))
		s.hosts = append(s.hosts, self)
	}
	return s
}

// gets returns, per page, how many GETs each worker sent.
func (s *sharedSite) gets() map[string]map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]map[string]int, len(s.by))
	for k, v := range s.by {
		c := make(map[string]int, len(v))
		for w, n := range v {
			c[w] = n
		}
		out[k] = c
	}
	return out
}

// sharedOptions are the options of one process of a shared crawl on dsn.
func sharedOptions(t *testing.T, dsn, worker string, q workqueue.Queue, g engine.Graph) engine.Options {
	t.Helper()
	return engine.Options{
		Graph: g,
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: loopback(),
			Workers:                4,
			Retry:                  fastRetry(),
			DecorateRequest: func(r *http.Request) error {
				r.Header.Set("X-Worker", worker)
				stampSent(r)
				return nil
			},
			FetchTimeout: 2 * time.Second,
		},
		PerHost: 2,
		Delay:   30 * time.Millisecond,
		AnyHost: true,
		Shared:  &engine.Shared{Queue: q, LeaseTTL: time.Second, Idle: time.Second},
	}
}

// openShared opens the graph of a process of the crawl.
func openShared(t *testing.T, dsn string) *postgres.Graph {
	t.Helper()
	g, err := postgres.Open(t.Context(), dsn, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return g
}

// TestSharedCrawlAcrossProcesses crawls one site of four hosts with three
// engines sharing a PostgreSQL graph, as three processes would: every page
// is fetched once in all, the hosts are shared out, robots.txt is fetched
// once per host, and per host at most PerHost requests are in flight and
// starts are Delay apart across the three together.
func TestSharedCrawlAcrossProcesses(t *testing.T) {
	dsn := pgtest.Database(t, "engine")
	const hosts, pages = 4, 25
	site := newSharedSite(t, hosts, pages, 5*time.Millisecond)
	seed := site.hosts[0].URL + "/0"

	var wg sync.WaitGroup
	sums := make([]*engine.Summary, 3)
	errs := make([]error, 3)
	for i := range 3 {
		g := openShared(t, dsn)
		e, err := engine.New(sharedOptions(t, dsn, fmt.Sprint("w", i), g.WorkQueue(), g))
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { sums[i], errs[i] = e.Run(context.Background(), seed) })
	}
	wg.Wait()
	busy := 0
	for i := range 3 {
		if errs[i] != nil {
			t.Fatalf("process %d: %v", i, errs[i])
		}
		if sums[i].Pages > 0 {
			busy++
		}
	}
	if busy < 2 {
		t.Errorf("only %d of 3 processes crawled anything", busy)
	}
	gets := site.gets()
	if len(gets) != hosts*pages {
		t.Errorf("%d pages fetched, want %d", len(gets), hosts*pages)
	}
	for page, by := range gets {
		n := 0
		for _, c := range by {
			n += c
		}
		if n != 1 {
			t.Errorf("%s fetched %d times (%v)", page, n, by)
		}
	}
	for _, h := range site.hosts {
		site.log.checkPoliteness(t, h.Host, 2, 30*time.Millisecond)
		if n := site.log.count(h.Host, "/robots.txt"); n != 1 {
			t.Errorf("%s: robots.txt fetched %d times, want once for all processes", h.Host, n)
		}
		if n := site.log.count(h.Host, "/private"); n != 0 {
			t.Errorf("%s: /private fetched against robots.txt", h.Host)
		}
	}
	g := openShared(t, dsn)
	if pending, err := g.WorkQueue().Pending(t.Context()); err != nil || pending {
		t.Errorf("links left queued after the crawl: %v, %v", pending, err)
	}
}

// dyingQueue is a shared queue whose process dies: after kill, every call
// fails, as if the process had vanished, and nothing it held is released.
type dyingQueue struct {
	workqueue.Queue
	mu   sync.Mutex
	dead bool
}

var errDead = errors.New("process killed")

func (q *dyingQueue) kill() {
	q.mu.Lock()
	q.dead = true
	q.mu.Unlock()
}

func (q *dyingQueue) check() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.dead {
		return errDead
	}
	return nil
}

func (q *dyingQueue) Enqueue(ctx context.Context, l []workqueue.Link) error {
	if err := q.check(); err != nil {
		return err
	}
	return q.Queue.Enqueue(ctx, l)
}

func (q *dyingQueue) Claim(ctx context.Context, w uuid.UUID, n int, ttl time.Duration, skip []string) ([]workqueue.Lease, error) {
	if err := q.check(); err != nil {
		return nil, err
	}
	return q.Queue.Claim(ctx, w, n, ttl, skip)
}

func (q *dyingQueue) Renew(ctx context.Context, w uuid.UUID, hosts []string, ttl time.Duration) ([]string, error) {
	if err := q.check(); err != nil {
		return nil, err
	}
	return q.Queue.Renew(ctx, w, hosts, ttl)
}

func (q *dyingQueue) Release(ctx context.Context, w uuid.UUID, host string, wait time.Duration) error {
	if err := q.check(); err != nil {
		return err
	}
	return q.Queue.Release(ctx, w, host, wait)
}

func (q *dyingQueue) Done(ctx context.Context, ids []uuid.UUID) error {
	if err := q.check(); err != nil {
		return err
	}
	return q.Queue.Done(ctx, ids)
}

// deadGetter refuses every request once its process is dead.
type deadGetter struct {
	q    *dyingQueue
	next crawler.URLGetter
}

func (g deadGetter) Do(r *http.Request) (*http.Response, error) {
	if err := g.q.check(); err != nil {
		return nil, err
	}
	return g.next.Do(r)
}

// TestSharedCrawlSurvivesADeadProcess: one of two processes dies mid-crawl
// holding hosts; once its leases expire the other takes them over and
// finishes the crawl. Pages fetched twice are only those the dead one had
// in flight; politeness holds across the takeover.
func TestSharedCrawlSurvivesADeadProcess(t *testing.T) {
	dsn := pgtest.Database(t, "engine")
	const hosts, pages = 3, 30
	site := newSharedSite(t, hosts, pages, 20*time.Millisecond)
	seed := site.hosts[0].URL + "/0"

	gDead, gLive := openShared(t, dsn), openShared(t, dsn)
	dq := &dyingQueue{Queue: gDead.WorkQueue()}
	oDead := sharedOptions(t, dsn, "dead", dq, gDead)
	oDead.URLGetter = deadGetter{q: dq, next: crawler.NewURLGetter(loopback())}
	var crawled sync.Map
	var once sync.Once
	killed := make(chan struct{})
	oDead.OnOutcome = func(o crawler.Outcome) {
		if o.Crawled() {
			crawled.Store(o.URL, true)
		}
		n := 0
		crawled.Range(func(any, any) bool { n++; return true })
		if n >= 10 {
			once.Do(func() { dq.kill(); close(killed) })
		}
	}
	eDead, err := engine.New(oDead)
	if err != nil {
		t.Fatal(err)
	}
	ctxDead, cancelDead := context.WithCancel(context.Background())
	defer cancelDead()
	deadRun, err := eDead.Start(ctxDead, seed)
	if err != nil {
		t.Fatal(err)
	}
	<-killed
	// The survivor starts after the death, so the dead one held every host
	// it had claimed.
	eLive, err := engine.New(sharedOptions(t, dsn, "live", gLive.WorkQueue(), gLive))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := eLive.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cancelDead()
	_, _ = deadRun.Wait()

	gets := site.gets()
	if len(gets) != hosts*pages {
		t.Errorf("%d pages fetched, want %d (survivor crawled %d: %v)", len(gets), hosts*pages, sum.Pages, sum.Reasons)
	}
	// A page fetched twice was in flight in the dead process: fetched by
	// it and not yet stored (its outcome, reported once a page is stored,
	// never came). Fetched and not stored covers the pages between the
	// fetchers and the stores, not only the fetch workers' own.
	for page, by := range gets {
		if by["dead"]+by["live"] <= 1 {
			continue
		}
		if _, ok := crawled.Load("http://" + page); ok || by["dead"] != 1 || by["live"] != 1 {
			t.Errorf("%s fetched %v, though the dead process had stored it or it was not in flight there", page, by)
		}
	}
	for _, h := range site.hosts {
		site.log.checkPoliteness(t, h.Host, 2, 30*time.Millisecond)
	}
}

// TestSharedCrawlStopsAndResumes: a process that stops at MaxPages leaves
// what it found in the shared queue (links found by its last pages
// included), and the next run finishes the site without fetching a page
// twice or reading the graph for leftovers.
func TestSharedCrawlStopsAndResumes(t *testing.T) {
	dsn := pgtest.Database(t, "engine")
	const hosts, pages = 2, 30
	site := newSharedSite(t, hosts, pages, time.Millisecond)
	seed := site.hosts[0].URL + "/0"

	g := openShared(t, dsn)
	o := sharedOptions(t, dsn, "first", g.WorkQueue(), g)
	o.MaxPages = 10
	e, err := engine.New(o)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.Run(context.Background(), seed)
	if err != nil || !sum.LimitReached {
		t.Fatalf("first run: %+v, %v; want the page limit reached", sum, err)
	}
	if pending, err := g.WorkQueue().Pending(t.Context()); err != nil || !pending {
		t.Fatalf("nothing left queued after a run stopped at MaxPages (%v)", err)
	}
	e, err = engine.New(sharedOptions(t, dsn, "second", g.WorkQueue(), g))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(context.Background(), seed); err != nil {
		t.Fatal(err)
	}
	gets := site.gets()
	if len(gets) != hosts*pages {
		t.Errorf("%d pages fetched over both runs, want %d", len(gets), hosts*pages)
	}
	for page, by := range gets {
		if n := by["first"] + by["second"]; n != 1 {
			t.Errorf("%s fetched %d times (%v)", page, n, by)
		}
	}
}

// A shared crawl reads sitemaps too: the pages only a host's sitemap lists
// are crawled once in all, whichever process holds the host, and the
// sitemap requests keep to the host's politeness across the processes.
func TestSharedCrawlReadsSitemaps(t *testing.T) {
	dsn := pgtest.Database(t, "engine")
	log := &requestLog{}
	var sites []*sitemapSite
	var hosts []*hostServer
	for i := range 2 {
		site := &sitemapSite{maps: map[string]any{}}
		h := startHost(t, 80+i, log, site)
		sites, hosts = append(sites, site), append(hosts, h)
	}
	for i, site := range sites {
		base := "http://" + hosts[i].Host
		other := "http://" + hosts[1-i].Host
		site.robots = "User-agent: *\nAllow: /\nSitemap: " + base + "/s.xml\n"
		site.maps["/s.xml"] = urlset(base, "/orphan1", "/orphan2", "/orphan3")
		// The root links to the other host, so both are crawled.
		site.maps["/"] = func(w http.ResponseWriter) { htmlPage(w, `<a href="`+other+`/">other</a>`) }
	}
	var wg sync.WaitGroup
	sums := make([]*engine.Summary, 2)
	errs := make([]error, 2)
	for i := range 2 {
		g := openShared(t, dsn)
		e, err := engine.New(sharedOptions(t, dsn, fmt.Sprint("w", i), g.WorkQueue(), g))
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { sums[i], errs[i] = e.Run(context.Background(), "http://"+hosts[0].Host+"/") })
	}
	wg.Wait()
	var pages int64
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("process %d: %v", i, errs[i])
		}
		pages += sums[i].Pages
	}
	if pages != 8 { // a root and three orphans a host
		t.Errorf("%d pages crawled in all, want 8", pages)
	}
	// Each process waited Idle (1 s) for more work after the last page
	// anyone handled: its active time leaves that out.
	for i, s := range sums {
		if s.Active < 0 || s.Elapsed-s.Active < 900*time.Millisecond {
			t.Errorf("process %d: active %v of %v elapsed, want at least the 1s idle wait left out", i, s.Active, s.Elapsed)
		}
	}
	for i, site := range sites {
		for _, p := range []string{"/orphan1", "/orphan2", "/orphan3"} {
			if n := site.served(p); n != 1 {
				t.Errorf("host %d: %s served %d times, want once", i, p, n)
			}
		}
		log.checkPoliteness(t, hosts[i].Host, 2, 30*time.Millisecond)
	}
}

// TestSharedQueueFromGraph: Shared without a Queue takes the graph's own
// when the graph keeps one (a PostgreSQL graph), and crawls the site once.
func TestSharedQueueFromGraph(t *testing.T) {
	dsn := pgtest.Database(t, "engine")
	const hosts, pages = 2, 5
	site := newSharedSite(t, hosts, pages, time.Millisecond)
	g := openShared(t, dsn)
	e, err := engine.New(sharedOptions(t, dsn, "only", nil, g))
	if err != nil {
		t.Fatalf("New with Shared.Queue unset on a PostgreSQL graph: %v", err)
	}
	sum, err := e.Run(context.Background(), site.hosts[0].URL+"/0")
	if err != nil {
		t.Fatal(err)
	}
	if sum.SharedQueries == 0 {
		t.Error("the run sent no statement to the graph's queue")
	}
	gets := site.gets()
	if len(gets) != hosts*pages {
		t.Errorf("%d pages fetched, want %d", len(gets), hosts*pages)
	}
	for page, by := range gets {
		if by["only"] != 1 {
			t.Errorf("%s fetched %v, want once", page, by)
		}
	}
	if pending, err := g.WorkQueue().Pending(t.Context()); err != nil || pending {
		t.Errorf("links left queued after the crawl: %v, %v", pending, err)
	}
}

// TestSharedNeedsQueue: Shared without a Queue, on a graph that keeps
// none, is refused with an error that says what is missing.
func TestSharedNeedsQueue(t *testing.T) {
	_, err := engine.New(engine.Options{Graph: memory.New(), Shared: &engine.Shared{}})
	if !errors.Is(err, engine.ErrOptions) {
		t.Fatalf("New(Shared without Queue, memory graph) = %v, want ErrOptions", err)
	}
	if !strings.Contains(err.Error(), "workqueue.Provider") {
		t.Errorf("error %q does not say the graph keeps no queue", err)
	}
}

// robotsWatch is a shared queue that shows the test what its process
// shares of robots.txt files.
type robotsWatch struct {
	workqueue.Queue
	saved func(workqueue.Robots)
}

func (q robotsWatch) SaveRobots(ctx context.Context, host string, r workqueue.Robots) error {
	err := q.Queue.SaveRobots(ctx, host, r)
	q.saved(r)
	return err
}

// TestSharedRobotsRetriesGoOn: a host's robots.txt that stays unreachable
// is tried as often as the retry policy says in all the processes it
// passes through together, not that often by each. A process that stops
// after two failed attempts leaves the host to the next with two attempts
// spent and the backoff still to wait; that one makes the two left, gives
// up and reports the page robots-unreachable; a third, later, takes that
// decision as it is, without asking the server again.
func TestSharedRobotsRetriesGoOn(t *testing.T) {
	dsn := pgtest.Database(t, "engine")
	log := &requestLog{}
	h := startHost(t, 9, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		htmlPage(w, "a page")
	}))
	retry := crawler.RetryPolicy{MaxRetries: 3, BaseDelay: 200 * time.Millisecond, MaxDelay: 200 * time.Millisecond}
	process := func(ctx context.Context, worker string, saved func(workqueue.Robots), seed string) *engine.Summary {
		t.Helper()
		g := openShared(t, dsn)
		o := sharedOptions(t, dsn, worker, robotsWatch{Queue: g.WorkQueue(), saved: saved}, g)
		o.Retry = retry
		e, err := engine.New(o)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := e.Run(ctx, seed)
		if err != nil && ctx.Err() == nil {
			t.Fatalf("%s: %v", worker, err)
		}
		return sum
	}

	// The first process stops once it has shared its second failure.
	ctx, stop := context.WithCancel(t.Context())
	var retry2 time.Duration
	process(ctx, "first", func(r workqueue.Robots) {
		if r.Failures == 2 {
			retry2 = r.Retry
			stop()
		}
	}, h.URL+"/")
	if n := log.count(h.Host, "/robots.txt"); n != 2 {
		t.Fatalf("the first process requested robots.txt %d times, want 2 before it stopped", n)
	}
	if n := log.count(h.Host, "/"); n != 0 {
		t.Fatalf("the page was requested %d times before robots.txt was known", n)
	}
	stopped := log.of(h.Host)[1].start

	var last workqueue.Robots
	sum := process(t.Context(), "second", func(r workqueue.Robots) { last = r }, h.URL+"/")
	robotsGets := log.count(h.Host, "/robots.txt")
	if robotsGets != 1+retry.MaxRetries {
		t.Errorf("robots.txt requested %d times by the two processes, want %d in all", robotsGets, 1+retry.MaxRetries)
	}
	if first := log.of(h.Host)[2].start; first.Sub(stopped) < retry2-10*time.Millisecond {
		t.Errorf("the second process tried again %v after the first's last attempt, before the backoff of %v", first.Sub(stopped), retry2)
	}
	if sum.Reasons[crawler.ReasonRobotsUnreachable.String()] != 1 || sum.Pages != 0 {
		t.Errorf("second process: %+v, want the page reported robots-unreachable", sum.Progress)
	}
	if last.Basis != robots.BasisUnreachable || last.Failures != 1+retry.MaxRetries || !strings.Contains(last.Error, "503") {
		t.Errorf("shared at the end %+v, want unreachable after %d attempts with the 503", last, 1+retry.MaxRetries)
	}

	sum = process(t.Context(), "third", func(workqueue.Robots) {}, h.URL+"/other")
	if n := log.count(h.Host, "/robots.txt"); n != robotsGets {
		t.Errorf("the third process asked for robots.txt again (%d requests in all, were %d)", n, robotsGets)
	}
	if len(sum.Seeds) != 1 || sum.Seeds[0].Reason != crawler.ReasonRobotsUnreachable ||
		sum.Seeds[0].Err == nil || !strings.Contains(sum.Seeds[0].Err.Error(), "503") {
		t.Errorf("third process: seeds %v, want the page robots-unreachable with the 503", sum.Seeds)
	}
	if n := log.count(h.Host, "/other") + log.count(h.Host, "/"); n != 0 {
		t.Errorf("pages requested %d times while robots.txt was unreachable", n)
	}
}

package safety

import (
	"context"
	"errors"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/crawler/robots"
	"github.com/linksrus/linksrus/internal/hostileweb"
	"github.com/linksrus/linksrus/linkgraph/bolt"
	"github.com/linksrus/linksrus/textindex/sqlite"
)

// The limits the hostile crawl runs under. Each trap is defended by one of
// them (see hostileExpectations); the peak heap bound follows from them.
const (
	hostileWorkers      = 8
	hostileFetchTimeout = 3 * time.Second
	// hostileMaxBody lets the 100,000-link page (about 5 MB) and the
	// 100,000-level nesting (about 1.1 MB) through to the parsers, which is
	// where those traps bite, while the endless body and the 1 GiB gzip
	// bomb are cut at 8 MiB.
	hostileMaxBody = 8 << 20
	hostileDepth   = 4
	hostilePages   = 300
	// hostileHeapBound is the peak of live heap objects allowed during the
	// crawl. What the limits let the crawler hold at once: a body buffer
	// per worker that may double while growing, 8 × 2 × 8 MiB = 128 MiB in
	// the worst case; net/http's 10 MiB response header limit for the
	// huge-headers route; the 100,000 links of one page (URL strings,
	// linkgraph.Link structs, bolt's write transaction) of some 30 MiB.
	// That is under 200 MiB; 256 MiB leaves room for the runtime and the
	// race detector's shadow of the heap is not counted by this metric.
	hostileHeapBound = 256 << 20
	// hostileManyLinks is the size of the many-links page: the server's
	// default of 100,000, all stored in the bolt graph in one batch.
	hostileManyLinks = hostileweb.DefaultManyLinks
)

// expectation is what the crawl must report for one route, and why the
// crawler gets there: the limit that defends against the trap.
type expectation struct {
	reason string
	// cause, if set, must be in the outcome's error chain.
	cause error
	// check, if set, inspects the outcome further.
	check func(t *testing.T, o crawler.Outcome)
	limit string
}

// hostileExpectations maps hostileweb route names to the crawler's
// outcome. The robots route is checked apart (TestHostileRobots): the
// crawler itself does not fetch robots.txt.
func hostileExpectations(opts hostileweb.Options) map[string]expectation {
	crawled := expectation{reason: "crawled", limit: "none needed"}
	return map[string]expectation{
		"index": crawled,
		"drip": {reason: crawler.ReasonFetchError.String(), cause: context.DeadlineExceeded,
			limit: "FetchOptions.FetchTimeout covers the body, not just the headers"},
		"endless": {reason: crawler.ReasonTooLarge.String(),
			limit: "FetchOptions.MaxBodyBytes: the body is read through a bound of MaxBodyBytes+1"},
		"gzip-bomb": {reason: crawler.ReasonTooLarge.String(),
			limit: "FetchOptions.MaxBodyBytes applies to the decoded body (net/http inflates transparently)"},
		"redirect-loop": {reason: "redirect-loop",
			limit: "default URLGetter stops at the first URL visited twice in one fetch"},
		"redirect-chain": {reason: "too-many-redirects",
			limit: "default URLGetter follows at most DefaultMaxRedirects (10) redirects"},
		"many-links": {reason: crawler.ReasonCrawled.String(),
			limit: "MaxBodyBytes bounds the page; the frontier's page budget bounds what is followed",
			check: func(t *testing.T, o crawler.Outcome) {
				if o.Links != opts.ManyLinks {
					t.Errorf("many-links: %d links extracted, want %d", o.Links, opts.ManyLinks)
				}
			}},
		"deep-nesting": {reason: crawler.ReasonCrawled.String(),
			limit: "streaming tokenizer (no tree) for links and text: depth costs nothing",
			check: func(t *testing.T, o crawler.Outcome) {
				if o.Links != 1 {
					t.Errorf("deep-nesting: %d links extracted, want the 1 at the bottom", o.Links)
				}
			}},
		"invalid-utf8": {reason: crawler.ReasonCrawled.String(),
			limit: "text extraction replaces invalid UTF-8 before indexing"},
		"mislabelled-charset": {reason: crawler.ReasonCrawled.String(),
			limit: "the header's charset wins (HTML encoding sniffing); decoding cannot fail"},
		"calendar": {reason: crawler.ReasonCrawled.String(),
			limit: "frontier depth (--max-depth) and page (--max-pages) limits"},
		"huge-headers": {reason: crawler.ReasonFetchError.String(),
			limit: "net/http's MaxResponseHeaderBytes (10 MiB) in the default transport"},
		"connection-reset": {reason: crawler.ReasonFetchError.String(),
			limit: "body read error fails the page, nothing partial is stored"},
		"image-as-html": {reason: crawler.ReasonContentType.String(),
			limit: "only text/html and application/xhtml+xml are processed"},
		"silent": {reason: crawler.ReasonFetchError.String(), cause: context.DeadlineExceeded,
			limit: "FetchOptions.FetchTimeout (the dialer's and transport's own timeouts are longer)"},
	}
}

func TestHostileWebCrawl(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	srv, err := hostileweb.Start(hostileweb.Options{Seed: 8, ManyLinks: hostileManyLinks})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	base, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	graph, err := bolt.Open(t.Context(), filepath.Join(dir, "graph.db"), bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer graph.Close()
	index, err := sqlite.Open(context.Background(), filepath.Join(dir, "index.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer index.Close()

	detector := privnet.New(netip.MustParsePrefix("127.0.0.0/8"))
	rg := &recordingGraph{Graph: graph, urls: map[uuid.UUID]string{}, found: map[uuid.UUID]bool{}}
	t0 := time.Now()
	var mu sync.Mutex
	outcomes := make(map[string][]crawler.Outcome)
	c, err := crawler.NewCrawler(crawler.Config{
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: detector,
			URLGetter:              crawler.NewURLGetter(detector),
			Workers:                hostileWorkers,
			MaxBodyBytes:           hostileMaxBody,
			FetchTimeout:           hostileFetchTimeout,
		},
		Graph: rg,
		Index: index,
		OnOutcome: func(o crawler.Outcome) {
			mu.Lock()
			if os.Getenv("SAFETY_DEBUG") != "" {
				t.Logf("%v %s %v %v", time.Since(t0), o.URL, o.Reason, o.Duration)
			}
			outcomes[o.URL] = append(outcomes[o.URL], o)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}

	routes := srv.Routes()
	var seeds []string
	for _, r := range routes {
		if r.Name != "robots" && !strings.HasPrefix(r.Name, "page-") {
			seeds = append(seeds, r.URL) // the pages are found through the index
		}
	}
	lc := &levelCrawl{crawler: c, graph: rg, host: base.Host, maxDepth: hostileDepth, maxPages: hostilePages, maxLevel: hostilePages / hostileDepth}

	// A generous outer deadline only turns a hang into a failure; the crawl
	// must end by itself well before it.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sampler := startHeapSampler(2 * time.Millisecond)
	start := time.Now()
	crawlErr := lc.run(ctx, t, seeds)
	elapsed := time.Since(start)
	peak, samples := sampler.Stop()
	if crawlErr != nil {
		t.Fatalf("crawl: %v", crawlErr)
	}
	if ctx.Err() != nil {
		t.Fatalf("the crawl did not end by itself: it ran into the test's deadline after %v", elapsed)
	}
	t.Logf("crawl: %v, levels %v, %d pages crawled, %d links left beyond the limits; peak heap objects %.1f MiB (%d samples, bound %d MiB)",
		elapsed, lc.levels, lc.crawled, lc.left, float64(peak)/(1<<20), samples, hostileHeapBound>>20)
	if peak >= hostileHeapBound {
		t.Errorf("peak heap objects %d MiB, want under %d MiB", peak>>20, hostileHeapBound>>20)
	}
	if samples < 10 {
		t.Errorf("only %d heap samples: the peak is not trustworthy", samples)
	}

	for u, got := range outcomes {
		if len(got) != 1 {
			t.Errorf("%s reported %d times, want once", u, len(got))
		}
	}
	want := hostileExpectations(srv.Options())
	for _, r := range routes {
		if r.Name == "robots" {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			exp, ok := want[r.Name]
			if !ok && strings.HasPrefix(r.Name, "page-") {
				exp = want["index"]
			} else if !ok {
				t.Fatalf("no expectation for route %q (%s): add one", r.Name, r.Trap)
			}
			got := outcomes[r.URL]
			if len(got) == 0 {
				t.Fatalf("%s (%s) was never reported", r.URL, r.Trap)
			}
			o := got[0]
			if o.Reason.String() != exp.reason {
				t.Fatalf("%s (%s): reason %v (err %v), want %v", r.Name, r.Trap, o.Reason, o.Err, exp.reason)
			}
			if exp.cause != nil && !errors.Is(o.Err, exp.cause) {
				t.Errorf("%s: err %v, want one wrapping %v", r.Name, o.Err, exp.cause)
			}
			if o.Duration > hostileFetchTimeout+time.Second {
				t.Errorf("%s: fetch took %v, beyond FetchTimeout %v", r.Name, o.Duration, hostileFetchTimeout)
			}
			if exp.check != nil {
				exp.check(t, o)
			}
			t.Logf("%-20s → %-12s (%s) err=%v", r.Name, o.Reason, exp.limit, o.Err)
		})
	}

	// The calendar is endless: the limits, not the site, ended it.
	calendar := 0
	for u, got := range outcomes {
		if strings.Contains(u, "/calendar/") && got[0].Crawled() {
			calendar++
		}
	}
	if len(lc.levels) != hostileDepth+1 || lc.left == 0 {
		t.Errorf("crawl levels %v, %d links left: want %d levels cut off by the depth limit", lc.levels, lc.left, hostileDepth+1)
	}
	if calendar < hostileDepth+1 || calendar > 1<<(hostileDepth+1) {
		t.Errorf("%d calendar pages crawled, want between %d and %d (depth %d)", calendar, hostileDepth+1, 1<<(hostileDepth+1), hostileDepth)
	}

	// What reached the index is clean UTF-8, whatever the page's bytes.
	for _, name := range []string{"invalid-utf8", "mislabelled-charset", "deep-nesting", "index"} {
		var r hostileweb.Route
		for _, rr := range routes {
			if rr.Name == name {
				r = rr
			}
		}
		o := outcomes[r.URL][0]
		doc, err := index.FindByID(o.LinkID)
		if err != nil {
			t.Errorf("%s: not in the index: %v", name, err)
			continue
		}
		if !utf8.ValidString(doc.Title) || !utf8.ValidString(doc.Content) {
			t.Errorf("%s: indexed text is not valid UTF-8: title %q", name, doc.Title)
		}
	}
}

// TestHostileRobots fetches the hostile server's robots.txt, random bytes,
// through the robots.txt fetch the crawl engine uses (robots.Fetch): it
// must decide, promptly and without error, that the garbage forbids
// nothing.
func TestHostileRobots(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv, err := hostileweb.Start(hostileweb.Options{Seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	detector := privnet.New(netip.MustParsePrefix("127.0.0.0/8"))
	getter := crawler.NewURLGetter(detector)
	defer getter.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), hostileFetchTimeout)
	defer cancel()
	rules := map[string]*robots.Rules{} // by origin
	for _, r := range srv.Routes() {
		if r.Name != "index" && !strings.HasPrefix(r.Name, "page-") {
			continue
		}
		u, _ := url.Parse(r.URL)
		origin := u.Scheme + "://" + u.Host
		if rules[origin] == nil {
			rs, basis, err := robots.Fetch(ctx, getter, origin, robots.Options{})
			if err != nil || basis != robots.BasisRules {
				t.Fatalf("robots.txt of %s: basis %v, %v; want the (garbage) rules", origin, basis, err)
			}
			rules[origin] = rs
		}
		if !rules[origin].AllowedURL(u) {
			t.Errorf("%s: disallowed, want allowed by the (garbage) rules", r.URL)
		}
	}
	if len(rules) == 0 {
		t.Fatal("no page route to check")
	}
}

package engine_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler/privnet"
)

// requestLog records, per host, when each request started and ended, as
// the server saw it.
type requestLog struct {
	mu   sync.Mutex
	reqs map[string][]served
}

type served struct {
	method, path string
	start, end   time.Time
	// sent is when the crawler sent the request, from its sentAtHeader;
	// zero without one. by is its X-Worker header, for messages.
	sent time.Time
	by   string
}

// sentAtHeader carries the time a request was sent, as UnixNano, set by
// stampSent: tests run the crawler in their own process, so its clock and
// the server's are one.
const sentAtHeader = "X-Test-Sent-At"

// stampSent is a DecorateRequest that stamps the request with the moment
// the crawler sends it: after its host's scheduler let it start.
func stampSent(r *http.Request) {
	r.Header.Set(sentAtHeader, strconv.FormatInt(time.Now().UnixNano(), 10))
}

func (l *requestLog) begin(r *http.Request, host string) func() {
	start := time.Now()
	var sent time.Time
	if n, err := strconv.ParseInt(r.Header.Get(sentAtHeader), 10, 64); err == nil {
		sent = time.Unix(0, n)
	}
	return func() {
		end := time.Now()
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.reqs == nil {
			l.reqs = make(map[string][]served)
		}
		l.reqs[host] = append(l.reqs[host], served{r.Method, r.URL.Path, start, end, sent, r.Header.Get("X-Worker")})
	}
}

func (l *requestLog) of(host string) []served {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := slices.Clone(l.reqs[host])
	slices.SortFunc(s, func(a, b served) int { return a.start.Compare(b.start) })
	return s
}

func (l *requestLog) count(host, path string) int {
	n := 0
	for _, r := range l.of(host) {
		if r.path == path {
			n++
		}
	}
	return n
}

// checkPoliteness asserts at most maxInFlight overlapping requests on
// host and at least gap between two starts (less a clock tolerance).
func (l *requestLog) checkPoliteness(t *testing.T, host string, maxInFlight int, gap time.Duration) {
	t.Helper()
	reqs := l.of(host)
	// The server sees a start later than the client sends it, by a dial or
	// a scheduling delay that varies from request to request.
	const tolerance = 25 * time.Millisecond
	// Where the crawler stamped when it sent both requests of a pair, their
	// gap is checked on those stamps, which the server's scheduling delays
	// (tens of ms under -race on a loaded machine) do not blur; other pairs
	// (robots.txt is not stamped) on the server's clock. A stamp is taken
	// just after the host's scheduler lets the request start, so it may
	// lag that moment by a preemption: a smaller tolerance.
	const sentTolerance = 10 * time.Millisecond
	for i, r := range reqs {
		if i > 0 && gap > 0 {
			prev := reqs[i-1]
			if !r.sent.IsZero() && !prev.sent.IsZero() {
				if d := r.sent.Sub(prev.sent).Abs(); d < gap-sentTolerance {
					t.Errorf("%s: %s %s sent by %q %v after %s %s by %q, want >= %v", host, r.method, r.path, r.by, d, prev.method, prev.path, prev.by, gap)
				}
			} else if d := r.start.Sub(prev.start); d < gap-tolerance {
				t.Errorf("%s: %s %s started %v after %s %s, want >= %v", host, r.method, r.path, d, prev.method, prev.path, gap)
			}
		}
		overlap := 1
		for _, o := range reqs[:i] {
			if o.end.After(r.start) {
				overlap++
			}
		}
		if overlap > maxInFlight {
			t.Errorf("%s: %d requests in flight when %s %s started, want <= %d", host, overlap, r.method, r.path, maxInFlight)
		}
	}
}

// hostServer is an HTTP server on one loopback address (127.0.0.n: Linux
// routes all of 127.0.0.0/8 to lo, so each is a distinct host).
type hostServer struct {
	*httptest.Server
	Host string // host:port
}

// startHost starts h on 127.0.0.n, recording its requests in log unless
// log is nil.
func startHost(t *testing.T, n int, log *requestLog, h http.Handler) *hostServer {
	t.Helper()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", n))
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.%d: %v", n, err)
	}
	s := httptest.NewUnstartedServer(nil)
	s.Listener.Close()
	s.Listener = ln
	hs := &hostServer{Server: s, Host: ln.Addr().String()}
	s.Config.Handler = h
	if log != nil {
		s.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			end := log.begin(r, hs.Host)
			defer end()
			h.ServeHTTP(w, r)
		})
	}
	s.Start()
	t.Cleanup(s.Close)
	return hs
}

func loopback() *privnet.Detector {
	return privnet.New(netip.MustParsePrefix("127.0.0.0/8"))
}

func htmlPage(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<html><body>%s</body></html>", body)
}

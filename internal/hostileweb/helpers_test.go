package hostileweb_test

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/linksrus/linksrus/internal/hostileweb"
)

// smallOptions shrinks the traps so that tests of the server stay fast; the
// defaults are exercised where their size is the point.
var smallOptions = hostileweb.Options{
	DripInterval: 20 * time.Millisecond,
	GzipBombSize: 8 << 20,
	ManyLinks:    100_000,
	NestingDepth: 100_000,
	HeaderBytes:  256 << 10,
}

// start starts a server that the test's cleanup closes.
func start(t *testing.T, opts hostileweb.Options) *hostileweb.Server {
	t.Helper()
	s, err := hostileweb.Start(opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// newClient returns a client that follows no redirects, does not decode
// gzip and gives up after timeout. Its idle connections are closed at
// cleanup, before the server's Close (cleanups run last in, first out).
func newClient(t *testing.T, timeout time.Duration) *http.Client {
	t.Helper()
	tr := &http.Transport{DisableCompression: true, MaxResponseHeaderBytes: 1 << 20}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// fetch GETs url and reads at most limit bytes of the body, failing the test
// on any error.
func fetch(t *testing.T, c *http.Client, url string, limit int64) (*http.Response, []byte) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		t.Fatalf("GET %s: read body: %v", url, err)
	}
	return resp, body
}

// wantContentType fails the test unless resp has exactly the content type want.
func wantContentType(t *testing.T, resp *http.Response, want string) {
	t.Helper()
	if got := resp.Header.Get("Content-Type"); got != want {
		t.Errorf("Content-Type = %q, want %q", got, want)
	}
}

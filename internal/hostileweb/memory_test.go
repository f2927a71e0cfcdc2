package hostileweb_test

import (
	"io"
	"net/http"
	"runtime"
	"testing"

	"github.com/linksrus/linksrus/internal/hostileweb"
)

// TestLargeRoutesStream checks that serving a multi-megabyte route allocates
// a small fraction of its size: building the page in memory would allocate
// at least the whole body. The count covers client and server together.
func TestLargeRoutesStream(t *testing.T) {
	s := start(t, hostileweb.Options{})
	tr := &http.Transport{DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	c := &http.Client{Transport: tr}
	get := func(path string) int64 {
		resp, err := c.Get(s.URL() + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<20))
		if err != nil {
			t.Fatalf("GET %s: read: %v", path, err)
		}
		return n
	}
	for _, path := range []string{hostileweb.PathManyLinks, hostileweb.PathDeepNesting, hostileweb.PathGzipBomb} {
		get(path) // warm up the connection and the handler's first-use costs
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		n := get(path)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d body bytes, %d bytes allocated", path, n, alloc)
		if alloc*8 > uint64(n) {
			t.Errorf("%s: allocated %d bytes for a %d-byte body, want under 1/8 of it", path, alloc, n)
		}
	}
}

package hostileweb_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/linksrus/linksrus/internal/hostileweb"
)

// BenchmarkServe measures what fetching each large route costs, client and
// server together, against an ordinary page as the baseline. B/op staying
// near the baseline while the body grows a thousandfold is the point: the
// handlers stream.
func BenchmarkServe(b *testing.B) {
	s, err := hostileweb.Start(hostileweb.Options{})
	if err != nil {
		b.Fatalf("Start: %v", err)
	}
	defer s.Close()
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	for _, bc := range []struct {
		name, path string
		limit      int64
	}{
		{"page", "/pages/1", 1 << 20},
		{"many-links", hostileweb.PathManyLinks, 64 << 20},
		{"deep-nesting", hostileweb.PathDeepNesting, 64 << 20},
		{"gzip-bomb-raw", hostileweb.PathGzipBomb, 64 << 20},
		{"endless-8MiB", hostileweb.PathEndless, 8 << 20},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var n int64
			for b.Loop() {
				resp, err := c.Get(s.URL() + bc.path)
				if err != nil {
					b.Fatalf("GET: %v", err)
				}
				n, err = io.Copy(io.Discard, io.LimitReader(resp.Body, bc.limit))
				resp.Body.Close()
				if err != nil {
					b.Fatalf("read: %v", err)
				}
			}
			b.SetBytes(n)
		})
	}
}

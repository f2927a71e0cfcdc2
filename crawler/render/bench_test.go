package render_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linksrus/linksrus/crawler/render"
)

// BenchmarkRender renders the generated pages of internal/jsweb (a shell
// each, its text and links from JSON), two at a time, and reports pages
// rendered per second: make render-bench.
func BenchmarkRender(b *testing.B) {
	const pages = 200
	s, f, shell := generatedSite(b, pages)
	r := newRenderer(b, render.Options{Tabs: 2})
	var next atomic.Int64
	b.SetParallelism(1) // GOMAXPROCS goroutines, as many as tabs on 2 cores
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			u := fmt.Sprintf("%s/gen/%d", s.URL(), next.Add(1)%pages)
			p, err := r.Render(b.Context(), u, shell, "text/html; charset=utf-8", f)
			if err != nil {
				b.Error(err)
				return
			}
			if len(p.Links) == 0 {
				b.Errorf("%s rendered without links", u)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "pages/s")
}

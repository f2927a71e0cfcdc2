package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/linksrus/linksrus/crawler/render"
	"github.com/linksrus/linksrus/internal/chromium/chromiumtest"
)

// TestRenderSample measures RenderAuto on documentation corpora (#27):
// for each corpus (LINKSRUS_RENDER_SAMPLE="pg=DIR py=DIR rust=DIR", each
// directory served on loopback from its index.html), N pages
// (LINKSRUS_RENDER_SAMPLE_PAGES, default 300) spread evenly over the first
// 10N a breadth-first crawl reaches are each rendered, and it reports how many auto renders (its decisions
// taken page after page in crawl order, learning from the pages it
// renders), and what rendering every page would find that the pages as
// served do not hold: URLs of the corpus, and words. make render-sample.
func TestRenderSample(t *testing.T) {
	spec := os.Getenv("LINKSRUS_RENDER_SAMPLE")
	if spec == "" {
		t.Skip("LINKSRUS_RENDER_SAMPLE names the corpora to measure (make render-sample)")
	}
	n := 300
	if v := os.Getenv("LINKSRUS_RENDER_SAMPLE_PAGES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	r, err := render.New(render.Options{Chromium: chromiumtest.ForTest(t), Tabs: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, c := range strings.Fields(spec) {
		name, dir, ok := strings.Cut(c, "=")
		if !ok {
			t.Fatalf("%q is not NAME=DIR", c)
		}
		srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
		t.Log(sampleCorpus(t, r, name, srv.URL+"/index.html", n))
		srv.Close()
	}
}

// samplePage is a page of the sample: its body as served and rendered.
type samplePage struct {
	url      *url.URL
	body     []byte
	rendered *render.Page
	err      error
}

func sampleCorpus(t *testing.T, r *render.Renderer, name, seed string, n int) string {
	// The sample is spread over the first 10n pages of the crawl, every
	// tenth, in crawl order: the first n alone are a site's front pages.
	crawled := crawlSample(t, seed, 10*n)
	step := max(len(crawled)/n, 1)
	var pages []*samplePage
	for i := 0; i < len(crawled) && len(pages) < n; i += step {
		pages = append(pages, crawled[i])
	}
	// Every page rendered, two at a time.
	var wg sync.WaitGroup
	next := make(chan *samplePage)
	for range 2 {
		wg.Go(func() {
			for p := range next {
				p.rendered, p.err = r.Render(t.Context(), p.url.String(), p.body, "text/html; charset=utf-8", sameHost(p.url.Host))
			}
		})
	}
	for _, p := range pages {
		next <- p
	}
	close(next)
	wg.Wait()

	staticLinks := map[string]bool{}
	for _, p := range pages {
		for l := range readPage(p.body, p.url).links {
			staticLinks[l] = true
		}
	}
	auto := newAutoRender()
	var autoRenders, autoYielding, scripted, failed, yielding, newWords int
	newURLs := map[string]bool{}
	for _, p := range pages {
		sig := readSignals(p.body)
		if sig.scripts > 0 {
			scripted++
		}
		want, probe := auto.wants(p.url.Host, sig)
		if p.err != nil {
			failed++
			if probe {
				auto.forget(p.url.Host)
			}
			continue
		}
		rd := &Rendered{HTML: p.rendered.HTML, Moved: p.rendered.Moved}
		before, after := readPage(p.body, p.url), readPage(rd.HTML, p.url)
		for _, m := range rd.Moved {
			after.links[m] = true
		}
		found := false
		for l := range after.links {
			if u, err := url.Parse(l); err == nil && u.Host == p.url.Host && !before.links[l] {
				found = true
				if !staticLinks[l] {
					newURLs[l] = true
				}
			}
		}
		words := 0
		for w := range after.words {
			if !before.words[w] {
				words++
			}
		}
		newWords += words
		yielded := found || words >= newWordsYield
		if yielded {
			yielding++
		}
		if want {
			autoRenders++
			if yielded {
				autoYielding++
			}
			auto.learn(p.url, p.body, rd, probe)
		}
	}
	return fmt.Sprintf("%s: %d pages (%d with scripts); auto renders %d (%.1f%%), %d of which yield; rendering every page: %d failed, %d yield (a new link to the corpus or %d+ new words), %d new URLs of the corpus not linked by any page of the sample as served, %d new words (per page, summed)",
		name, len(pages), scripted, autoRenders, 100*float64(autoRenders)/float64(max(len(pages), 1)), autoYielding,
		failed, yielding, newWordsYield, len(newURLs), newWords)
}

// crawlSample fetches the first n HTML pages a breadth-first crawl from
// seed reaches on its host.
func crawlSample(t *testing.T, seed string, n int) []*samplePage {
	start, _ := url.Parse(seed)
	seen := map[string]bool{seed: true}
	queue := []string{seed}
	var pages []*samplePage
	for len(queue) > 0 && len(pages) < n {
		u := queue[0]
		queue = queue[1:]
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK || !isHTML(res.Header.Get("Content-Type")) {
			continue
		}
		pu, _ := url.Parse(u)
		pages = append(pages, &samplePage{url: pu, body: body})
		// In document order would be better; sorted is at least the
		// same sample each run.
		for _, l := range slices.Sorted(maps.Keys(readPage(body, pu).links)) {
			lu, err := url.Parse(l)
			if err != nil || lu.Host != start.Host || seen[l] {
				continue
			}
			if ext := path.Ext(lu.Path); ext != "" && ext != ".html" && ext != ".htm" {
				continue
			}
			seen[l] = true
			queue = append(queue, l)
		}
	}
	return pages
}

// sameHost fetches what the browser asks for on host, and refuses the rest.
func sameHost(host string) render.Fetcher {
	return render.FetcherFunc(func(ctx context.Context, req *http.Request) (*render.Response, error) {
		if req.URL.Host != host || req.Method != http.MethodGet {
			return nil, errors.New("not the corpus")
		}
		res, err := http.DefaultClient.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
		if err != nil {
			return nil, err
		}
		return &render.Response{StatusCode: res.StatusCode, Header: res.Header, Body: b}, nil
	})
}

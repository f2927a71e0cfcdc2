package main

import (
	"encoding/json"
	"fmt"
	"github.com/google/uuid"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/engine"
	"github.com/linksrus/linksrus/linkgraph"
)

// summary is what a crawl did, printed at the end and written to the report.
type summary struct {
	Pages     int64 `json:"pages"`
	Unchanged int64 `json:"unchanged"`
	// Rendered pages, renders that failed, and the browser's requests
	// refused (--render).
	Rendered      int64            `json:"rendered,omitempty"`
	RenderFailed  int64            `json:"render_failed,omitempty"`
	RenderRefused int64            `json:"render_requests_refused,omitempty"`
	Links         int64            `json:"links"`
	Bytes         int64            `json:"bytes"`
	Errors        int64            `json:"errors"`
	Skipped       int64            `json:"skipped"`
	Queued        int              `json:"left_queued"`
	Reasons       map[string]int64 `json:"reasons"`
	// Sitemaps read, the URLs they listed in scope and those left out.
	Sitemaps       int64   `json:"sitemaps"`
	SitemapURLs    int64   `json:"sitemap_urls"`
	SitemapSkipped int64   `json:"sitemap_urls_skipped"`
	Elapsed        float64 `json:"elapsed_seconds"`
	// Active is the time to the last page handled; PagesPerSec counts it,
	// not the wait for more work at the end of a shared crawl (--idle).
	Active      float64 `json:"active_seconds"`
	PagesPerSec float64 `json:"pages_per_second"`
	Interrupted bool    `json:"interrupted"`
	Partition   string  `json:"partition,omitempty"`
}

func newSummary(s *engine.Summary, cfg *crawlConfig, interrupted bool) summary {
	sum := summary{
		Pages:          s.Pages,
		Unchanged:      s.Unchanged,
		Rendered:       s.Rendered,
		RenderFailed:   s.RenderFailed,
		RenderRefused:  s.RenderRefused,
		Links:          s.Links,
		Bytes:          s.Bytes,
		Errors:         s.Errors,
		Skipped:        s.Skipped,
		Queued:         s.Queued,
		Reasons:        s.Reasons,
		Sitemaps:       s.Sitemaps,
		SitemapURLs:    s.SitemapURLs,
		SitemapSkipped: s.SitemapSkipped,
		Elapsed:        s.Elapsed.Seconds(),
		Active:         s.Active.Seconds(),
		Interrupted:    interrupted,
	}
	sum.PagesPerSec = float64(sum.Pages) / max(sum.Active, 1e-9)
	if cfg.partition.count > 1 {
		sum.Partition = cfg.partition.String()
	}
	return sum
}

func printSummary(w io.Writer, s summary) {
	fmt.Fprintf(w, "crawled %d pages (%s, %d links found) in %.2fs", s.Pages, humanBytes(s.Bytes), s.Links, s.Elapsed)
	if s.Active > 0 && s.Elapsed-s.Active >= idleShown {
		// A shared crawl waits for work at its end (--idle): the pages
		// went at the rate of the time before.
		fmt.Fprintf(w, " (last page at %.2fs, then waited for more work: --idle)", s.Active)
	}
	fmt.Fprintf(w, ", %.0f pages/s; %d errors, %d skipped", s.PagesPerSec, s.Errors, s.Skipped)
	if s.Queued > 0 {
		fmt.Fprintf(w, "; %d URLs left for the next run", s.Queued)
	}
	fmt.Fprintln(w)
	if s.Unchanged > 0 {
		fmt.Fprintf(w, "%d of the pages unchanged since the last crawl (304 Not Modified: not downloaded again)\n", s.Unchanged)
	}
	if s.Rendered > 0 || s.RenderFailed > 0 {
		fmt.Fprintf(w, "rendered %d pages in the browser (%d of its requests refused by the crawl's rules); %d renders failed, crawled as served\n", s.Rendered, s.RenderRefused, s.RenderFailed)
	}
	if s.Sitemaps > 0 || s.SitemapURLs > 0 {
		fmt.Fprintf(w, "sitemaps: %d read, listing %d URLs in scope (%d left out)\n", s.Sitemaps, s.SitemapURLs, s.SitemapSkipped)
	}
	// Outcomes count pages the crawl handled; scope and depth decisions
	// count links found and left out, which are not pages skipped.
	var pages, links []string
	for k := range s.Reasons {
		switch {
		case k == crawler.ReasonCrawled.String():
		case isLinkDecision(k):
			links = append(links, k)
		default:
			pages = append(pages, k)
		}
	}
	slices.Sort(pages)
	slices.Sort(links)
	if len(pages) > 0 {
		fmt.Fprintln(w, "pages not crawled, by reason:")
		for _, k := range pages {
			fmt.Fprintf(w, "  %-32s %d\n", k, s.Reasons[k])
		}
	}
	if len(links) > 0 {
		fmt.Fprintln(w, "URLs left out of the crawl (linked from pages or listed in sitemaps, not fetched):")
		for _, k := range links {
			fmt.Fprintf(w, "  %-32s %d\n", k, s.Reasons[k])
		}
	}
}

// idleShown is the wait for work at the end of a crawl worth a mention in
// its summary line.
const idleShown = 0.5 // seconds

// isLinkDecision reports whether a reason counts links left out by scope or
// depth (found on pages, or listed by sitemaps: "sitemap: ..."), rather
// than pages.
func isLinkDecision(reason string) bool {
	return reason == "depth" || strings.HasPrefix(reason, "scope: ") || strings.HasPrefix(reason, "sitemap: ")
}

// urlOutcome is one URL's line in the report.
type urlOutcome struct {
	URL         string         `json:"url"`
	FinalURL    string         `json:"final_url,omitempty"`
	Outcome     string         `json:"outcome"`
	Error       string         `json:"error,omitempty"`
	Status      int            `json:"status,omitempty"`
	ContentType string         `json:"content_type,omitempty"`
	Bytes       int64          `json:"bytes"`
	Seconds     float64        `json:"seconds"`
	Links       int            `json:"links"`
	NoFollow    int            `json:"nofollow_links,omitempty"`
	NoIndex     bool           `json:"noindex,omitempty"`
	Render      *renderOutcome `json:"render,omitempty"`
	id          uuid.UUID
}

// renderOutcome is how a page's render went (--render), for the pages one
// was tried for.
type renderOutcome struct {
	Rendered bool   `json:"rendered"`
	Settled  bool   `json:"settled"`
	Fetched  int    `json:"requests_fetched"`
	Refused  int    `json:"requests_refused"`
	Error    string `json:"error,omitempty"`
}

// brokenLink is a link whose target could not be fetched with a 2xx status,
// with the pages found linking to it.
type brokenLink struct {
	URL        string   `json:"url"`
	Status     int      `json:"status,omitempty"`
	Error      string   `json:"error,omitempty"`
	LinkedFrom []string `json:"linked_from"`
}

// reportWriter collects every URL's outcome for --report.
type reportWriter struct {
	mu       sync.Mutex
	outcomes []urlOutcome
}

func newReportWriter() *reportWriter { return &reportWriter{} }

func (w *reportWriter) add(o crawler.Outcome) {
	u := urlOutcome{
		URL: o.URL, FinalURL: o.FinalURL, Outcome: o.Reason.String(),
		Status: o.StatusCode, ContentType: o.ContentType, Bytes: o.Bytes,
		Seconds: o.Duration.Seconds(), Links: o.Links, NoFollow: o.NoFollowLinks,
		NoIndex: o.NoIndex, id: o.LinkID,
	}
	if o.FinalURL == o.URL {
		u.FinalURL = ""
	}
	if o.Err != nil {
		u.Error = o.Err.Error()
	}
	if r := o.Render; r.Rendered || r.Err != nil {
		u.Render = &renderOutcome{Rendered: r.Rendered, Settled: r.Settled, Fetched: r.Fetched, Refused: r.Refused}
		if r.Err != nil {
			u.Render.Error = r.Err.Error()
		}
	}
	w.mu.Lock()
	w.outcomes = append(w.outcomes, u)
	w.mu.Unlock()
}

// broken lists the links that failed with a non-2xx status or an error,
// with the pages seen linking to them in this run.
func (w *reportWriter) broken(refs *engine.Run, g linkgraph.Graph) []brokenLink {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []brokenLink
	urls := map[uuid.UUID]string{}
	for _, o := range w.outcomes {
		if o.Outcome != crawler.ReasonHTTPStatus.String() && o.Outcome != crawler.ReasonFetchError.String() {
			continue
		}
		b := brokenLink{URL: o.URL, Status: o.Status, Error: o.Error, LinkedFrom: []string{}}
		for _, src := range refs.Referrers(o.id) {
			u, ok := urls[src]
			if !ok {
				if l, err := g.FindLink(src); err == nil {
					u = l.URL
				}
				urls[src] = u
			}
			if u != "" {
				b.LinkedFrom = append(b.LinkedFrom, u)
			}
		}
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b brokenLink) int {
		switch {
		case a.URL < b.URL:
			return -1
		case a.URL > b.URL:
			return 1
		}
		return 0
	})
	return out
}

// write writes the report as one JSON document to path. With an index, it
// lists the crawled pages with duplicate and near-duplicate text.
func (w *reportWriter) write(path string, sum summary, refs *engine.Run, g linkgraph.Graph, idx finder) error {
	broken := w.broken(refs, g)
	w.mu.Lock()
	outcomes := slices.Clone(w.outcomes)
	w.mu.Unlock()
	var (
		exact  []duplicateGroup
		near   []nearDuplicateGroup
		dupErr error
		dupMsg string
	)
	if idx != nil {
		var ids []uuid.UUID
		for _, o := range outcomes {
			if o.Outcome == crawler.ReasonCrawled.String() && !o.NoIndex {
				ids = append(ids, o.id)
			}
		}
		// An index that fails now (a database restarting) costs the
		// report its duplicate lists, not the rest of it.
		if exact, near, dupErr = duplicates(idx, ids); dupErr != nil {
			dupMsg = dupErr.Error()
		}
	}
	slices.SortFunc(outcomes, func(a, b urlOutcome) int {
		switch {
		case a.URL < b.URL:
			return -1
		case a.URL > b.URL:
			return 1
		}
		return 0
	})
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	err = enc.Encode(struct {
		Summary        summary              `json:"summary"`
		BrokenLinks    []brokenLink         `json:"broken_links"`
		Duplicates     []duplicateGroup     `json:"duplicates"`
		NearDuplicates []nearDuplicateGroup `json:"near_duplicates"`
		DuplicatesErr  string               `json:"duplicates_error,omitempty"`
		URLs           []urlOutcome         `json:"urls"`
	}{sum, nonNil(broken), nonNil(exact), nonNil(near), dupMsg, nonNil(outcomes)})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	if dupErr != nil {
		return fmt.Errorf("report %s: no duplicate lists: %w", path, dupErr)
	}
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

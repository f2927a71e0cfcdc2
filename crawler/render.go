package crawler

import (
	"context"
	"fmt"
	"html"

	"github.com/linksrus/linksrus/pipeline"
)

// Renderer renders a fetched page as a browser shows it, its scripts run:
// the crawl then reads the page's links and text from the rendered
// document instead of the HTML as served. Package render's Renderer, bound
// to a fetcher that keeps the browser's own requests under the crawl's
// rules, is one (package engine binds it).
type Renderer interface {
	// Render renders the page at pageURL from body, its HTML decoded to
	// UTF-8, which the crawl has fetched: the browser must not download
	// it again. An error means there is no rendered document; the page
	// is then crawled as served.
	Render(ctx context.Context, pageURL string, body []byte) (*Rendered, error)
}

// Rendered is a page as a Renderer rendered it.
type Rendered struct {
	// HTML is the rendered document. Its links are read as the page's,
	// relative to the page's URL as fetched: a Renderer should make them
	// absolute, since the page's scripts may have moved it elsewhere.
	HTML []byte
	// Moved are the URLs the page moved to without loading them
	// (history.pushState, replaceState), which the HTML does not link
	// to: they are the page's links too.
	Moved []string
	// Settled, Fetched and Refused are reported in the page's Outcome
	// (see RenderReport).
	Settled          bool
	Fetched, Refused int
}

// RenderMode says which pages a crawl renders with its Renderer.
type RenderMode uint8

const (
	// RenderNever crawls every page as served.
	RenderNever RenderMode = iota
	// RenderAuto renders the pages that need it, as told by the static
	// HTML and by what rendering yielded on the host's pages so far (see
	// Config.Render).
	RenderAuto
	// RenderAlways renders every HTML page fetched.
	RenderAlways
	numRenderModes
)

var renderModeNames = [numRenderModes]string{"never", "auto", "always"}

// String returns the mode's name: never, auto or always.
func (m RenderMode) String() string {
	if m < numRenderModes {
		return renderModeNames[m]
	}
	return fmt.Sprintf("RenderMode(%d)", uint8(m))
}

// ParseRenderMode returns the mode named s (as String writes it).
func ParseRenderMode(s string) (RenderMode, error) {
	for m, name := range renderModeNames {
		if s == name {
			return RenderMode(m), nil
		}
	}
	return RenderNever, fmt.Errorf("crawler: render mode %q is not never, auto or always", s)
}

// RenderReport is what became of a page's rendering, in its Outcome. The
// zero value is a page not rendered, nor meant to be.
type RenderReport struct {
	// Rendered is set when the page's links and text are those of the
	// rendered document.
	Rendered bool
	// Settled is false for a rendered page whose network was still busy
	// when its budget ran out: it was read as it was then.
	Settled bool
	// Fetched and Refused count the requests the browser made for the
	// page that the crawl fetched, and those it refused (robots.txt, a
	// private address, a host the crawl may not fetch from now, the
	// page's byte budget).
	Fetched, Refused int
	// Err is why a render that was tried failed (the browser's page
	// crashed, the renderer is closed...): the page was crawled as served.
	Err error
}

// renderStage renders the fetched HTML pages its mode picks and puts the
// rendered document in the page's place, for the extraction stage.
type renderStage struct {
	r    Renderer
	auto *autoRender // RenderAuto's decisions; nil for RenderAlways
}

func newRenderStage(r Renderer, mode RenderMode) *renderStage {
	s := &renderStage{r: r}
	if mode == RenderAuto {
		s.auto = newAutoRender()
	}
	return s
}

// Process implements pipeline.Processor. A failed render is not the
// crawl's error: the page goes on as served, its Outcome saying why.
func (s *renderStage) Process(ctx context.Context, pp pipeline.Payload) (pipeline.Payload, error) {
	p, err := asPayload(pp)
	if err != nil {
		return nil, fmt.Errorf("crawler: render: %w", err)
	}
	if p.Unchanged || p.StatusCode < 200 || p.StatusCode > 299 || len(p.Body) == 0 || (p.ContentType != "" && !isHTML(p.ContentType)) {
		return p, nil
	}
	base, err := pageURL(p)
	if err != nil {
		return nil, err
	}
	probe := false
	if s.auto != nil {
		var render bool
		if render, probe = s.auto.wants(base.Host, readSignals(p.Body)); !render {
			return p, nil
		}
	}
	r, err := s.r.Render(ctx, base.String(), p.Body)
	if err == nil && r == nil {
		err = fmt.Errorf("render %s: the renderer returned no page", base)
	}
	if err != nil {
		if probe {
			s.auto.forget(base.Host)
		}
		p.render = RenderReport{Err: fmt.Errorf("crawler: %w", err)} // the renderer names the page
		return p, nil
	}
	if s.auto != nil {
		s.auto.learn(base, p.Body, r, probe)
	}
	p.Body = withMoves(r.HTML, r.Moved)
	p.render = RenderReport{Rendered: true, Settled: r.Settled, Fetched: r.Fetched, Refused: r.Refused}
	return p, nil
}

// withMoves returns doc with an anchor to each URL the page moved to
// appended, so that the extraction stage reads them as links of the page,
// under the same rules as the others.
func withMoves(doc []byte, moved []string) []byte {
	if len(moved) == 0 {
		return doc
	}
	doc = append(doc[:len(doc):len(doc)], '\n')
	for _, u := range moved {
		doc = append(doc, `<a href="`...)
		doc = append(doc, html.EscapeString(u)...)
		doc = append(doc, `"></a>`...)
	}
	return doc
}

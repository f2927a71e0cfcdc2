package crawler

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/pipeline"
)

// Crawler crawls sets of links through the crawl pipeline. It is safe for
// concurrent use: each Crawl call runs a pipeline of its own, with its own
// source and sink, so that one crawl's starved frontier asks its own store
// batches to go, not another crawl's.
type Crawler struct {
	cfg Config
	// idle is the default URLGetter's transport, nil for a caller's getter.
	idle interface{ CloseIdleConnections() }
}

// NewCrawler returns a Crawler for cfg, with defaults filled in. It fails
// only for invalid settings (negative sizes, nil gates or processors),
// with an error wrapping ErrInvalidConfig and the *OptionError that
// Config.Check gives.
func NewCrawler(cfg Config) (*Crawler, error) {
	c := &Crawler{}
	userGetter := cfg.URLGetter != nil
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if !userGetter {
		if hc, ok := cfg.URLGetter.(*http.Client); ok {
			c.idle = hc
		}
	}
	c.cfg = cfg
	return c, nil
}

// Stages returns the stage runners of the crawl pipeline for cfg, for a
// caller who wants to run them in a pipeline of their own (with extra
// stages, other runners or another source). Feed the pipeline with a
// Source and end it with a Sink to get the same counting and outcomes as
// Crawl.
func Stages(cfg Config) ([]pipeline.StageRunner, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	// The caller's stages after these may read the pages' bodies.
	return stages(cfg, false, nil), nil
}

// stages returns the crawl pipeline's stages. releaseBody says whether the
// pipeline ends with them (and cfg's processors): the extraction stage may
// then hand each page's body back once it is parsed, when no processor
// reads it. A value on flush, if not nil, makes a store batch being
// gathered go at once.
func stages(cfg Config, releaseBody bool, flush <-chan struct{}) []pipeline.StageRunner {
	s := []pipeline.StageRunner{pipeline.FixedWorkerPool(newFetcher(cfg), cfg.Workers)}
	if cfg.Renderer != nil && cfg.Render != RenderNever {
		// The Renderer bounds its own tabs; as many workers as fetch
		// workers let the pages it passes by go on while others render.
		s = append(s, pipeline.FixedWorkerPool(newRenderStage(cfg.Renderer, cfg.Render), cfg.Workers))
	}
	return append(s, afterFetch(cfg, releaseBody, flush)...)
}

// afterFetch returns the stages that follow the fetch, for stages and for
// Import.
func afterFetch(cfg Config, releaseBody bool, flush <-chan struct{}) []pipeline.StageRunner {
	// Parsing is pure CPU and pages need not stay in order: one parser
	// per CPU.
	s := []pipeline.StageRunner{
		pipeline.FixedWorkerPool(extractor(cfg, releaseBody), runtime.GOMAXPROCS(0)),
	}
	// The stores are written in batches: a batch waits for more pages
	// while they keep coming (StoreBatchDelay), so under load one commit
	// serves many pages, and is written as soon as they pause, so a
	// crawl waiting on the links of the pages held is not kept waiting.
	// A page moves on, and so has its outcome reported, only once
	// stored. The graph takes GraphWriters batches at once, so that a
	// graph server's round trips overlap instead of adding up.
	// With an index, the graph and the index are written side by side
	// (a scatter-gather stage), and a page is marked retrieved in the
	// graph only after both have it (see RetrievalMarker).
	size, delay := cfg.StoreBatchSize, max(cfg.StoreBatchDelay, 0)
	batching := []pipeline.BatchOption{
		pipeline.FlushOnPause(StoreBatchPause),
		pipeline.FlushAtWeight(StoreBatchBytes, payloadBytes),
	}
	// The stores' stage, the one that waits for pages, goes when the
	// crawl asks; a later batching stage must not take the signal.
	storing := batching
	if flush != nil {
		storing = append(slices.Clip(batching), pipeline.FlushOnSignal(flush))
	}
	switch {
	case cfg.Graph != nil && cfg.Index != nil:
		stores := []pipeline.BatchProcessor{
			NewGraphUpdaterWithoutMark(cfg.Graph),
			&TextIndexer{indexer: cfg.Index, now: time.Now, besideGraph: true},
		}
		marker := NewRetrievalMarker(cfg.Graph)
		marker.leftover = NewTextIndexer(cfg.Index)
		s = append(s,
			pipeline.ScatterGather(stores, size, delay, cfg.GraphWriters, storing...),
			// One marker: a mark is one small write per batch, and
			// one worker lets all that queued up share it. Its input
			// comes in whole batches already: it need not wait.
			pipeline.Batch(marker, size, 0, batching...))
	case cfg.Graph != nil:
		s = append(s, pipeline.BatchPool(NewGraphUpdater(cfg.Graph), size, delay, cfg.GraphWriters, storing...))
	case cfg.Index != nil:
		s = append(s, pipeline.Batch(NewTextIndexer(cfg.Index), size, delay, storing...))
	}
	procs := cfg.Processors
	if len(procs) > 0 && (cfg.Graph != nil || cfg.Index != nil) {
		// A processor dropping its copy must not make a stored page count
		// as dropped: the pass-through copy carries it to the end.
		procs = append([]pipeline.Processor{passThrough{}}, procs...)
	}
	switch len(procs) {
	case 0:
	case 1:
		s = append(s, pipeline.FIFO(procs[0])) // no copy needed
	default:
		s = append(s, pipeline.Broadcast(procs...))
	}
	return s
}

// extractor returns the extraction stage's processor for cfg. The text is
// only worth extracting if something reads it, and the graph does not;
// with text wanted, links and text come from one pass of the tokenizer:
// the text part costs less than the second tokenizer pass it saves.
func extractor(cfg Config, releaseBody bool) pipeline.Processor {
	links := NewLinkExtractorWithOptions(cfg.PrivateNetworkDetector, LinkOptions{Normalization: cfg.Normalization()})
	// The stores read a page's links and text, not its HTML: unless a
	// processor, or a stage of the caller's (see Stages), wants the page,
	// its body can go back for the next fetch.
	links.lastReader = releaseBody && len(cfg.Processors) == 0
	if cfg.Index != nil || len(cfg.Processors) > 0 {
		return &PageExtractor{links: links}
	}
	return links
}

// payloadBytes is the content a page holds while it waits in a store
// batch, which StoreBatchBytes bounds.
func payloadBytes(pp pipeline.Payload) int64 {
	p, ok := pp.(*Payload)
	if !ok {
		return 0
	}
	return int64(len(p.Body) + len(p.TextContent) + len(p.Headings) + len(p.Title))
}

// passThrough is a processor that forwards its payload unchanged.
type passThrough struct{}

func (passThrough) Process(_ context.Context, p pipeline.Payload) (pipeline.Payload, error) {
	return p, nil
}

// Crawl fetches the links of it, updates the graph and the index, and
// returns the number of pages that went through the whole pipeline, each
// counted once: CrawlFrom with a LinkFrontier over it, one pass over its
// links. The caller keeps ownership of it and closes it.
func (c *Crawler) Crawl(ctx context.Context, it linkgraph.LinkIterator) (int, error) {
	if it == nil {
		return 0, fmt.Errorf("%w: nil link iterator", ErrInvalidConfig)
	}
	f := NewLinkFrontier(it)
	defer f.Close()
	return c.CrawlFrom(ctx, f)
}

// CrawlFrom crawls the pages f hands out (see Frontier), updates the graph
// and the index, and returns the number of pages that went through the
// whole pipeline, each counted once. Pages that are skipped or fail to
// fetch are reported through f's Done and Config.OnOutcome and do not stop
// the crawl; an error from the frontier, the graph, the index or a user
// processor does, and is returned together with the count so far.
// CrawlFrom returns when f's Next has reported the end and every page has
// been handled, or soon after ctx is cancelled, and in both cases leaves
// no goroutine behind. Pages f still holds parked then are f's to report.
func (c *Crawler) CrawlFrom(ctx context.Context, f Frontier) (int, error) {
	if f == nil {
		return 0, fmt.Errorf("%w: nil frontier", ErrInvalidConfig)
	}
	if c.idle != nil {
		// Keep-alive connections would outlive the crawl, goroutines and
		// all; the next crawl may be hours away.
		defer c.idle.CloseIdleConnections()
	}
	// flush makes the store stage write the batches it is gathering: a
	// value per store worker, sent when the frontier is starved (see
	// Frontier.Next).
	flush := newFlush(c.cfg)
	p := pipeline.New(stages(c.cfg, true, flush)...)
	sink := new(Sink)
	src := NewSource(f, c.cfg.OnOutcome, func() { starved(flush) })
	err := p.Process(ctx, src, sink)
	if err == nil {
		// The last pages are reported after the pipeline last asked the
		// source: a panic in their reporting shows now.
		err = src.hook.err()
	}
	if err != nil {
		return sink.Count(), fmt.Errorf("crawler: crawl: %w", err)
	}
	return sink.Count(), nil
}

// newFlush returns a crawl's flush channel: room for one value per store
// worker.
func newFlush(cfg Config) chan struct{} { return make(chan struct{}, cfg.GraphWriters) }

// starved asks every store worker for the batch it is gathering, without
// waiting: the values not taken yet stand.
func starved(flush chan<- struct{}) {
	for {
		select {
		case flush <- struct{}{}:
		default:
			return
		}
	}
}

// outcomeHook calls a page's reporting (a Frontier's Done, Config.OnOutcome)
// with a recover: it runs when a page's last copy is marked processed,
// outside the pipeline's own recovery, and a panic there must not take the
// process down. The first panic is kept as
// the crawl's error (a *pipeline.PanicError); the crawl goes on.
type outcomeHook struct {
	fn    func(Outcome)
	mu    sync.Mutex
	panic error
}

func (h *outcomeHook) call(o Outcome) {
	defer func() {
		if v := recover(); v != nil {
			h.mu.Lock()
			if h.panic == nil {
				h.panic = fmt.Errorf("OnOutcome for %s: %w", o.URL, &pipeline.PanicError{Value: v, Stack: debug.Stack()})
			}
			h.mu.Unlock()
		}
	}()
	h.fn(o)
}

func (h *outcomeHook) err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.panic
}

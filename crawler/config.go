package crawler

import (
	"errors"
	"fmt"
	"time"

	"github.com/linksrus/linksrus/pipeline"
)

// Defaults for the Config fields left zero (FetchOptions has its own).
const (
	// DefaultStoreBatchSize is the most pages the graph updater and the
	// indexer write in one go: what a busy crawl delivers in about
	// DefaultStoreBatchDelay, so that the delay, not the size, closes a
	// batch, while each write stays short.
	DefaultStoreBatchSize = 256
	// DefaultStoreBatchDelay is how long a batch of pages waits for more
	// pages to share its write, while they keep coming. A store pays per
	// write (an fsync, a full-text index segment and the merging of
	// segments later), and batches of whatever queued up stay small: on
	// the rust documentation corpus (21,632 pages) the embedded stores
	// wrote 950 batches of 23 pages on average, against about 130 of 170
	// when batches wait up to 50 ms, which took a sixth off the crawl.
	DefaultStoreBatchDelay = 50 * time.Millisecond
	// StoreBatchPause is the pause in the arrival of pages that closes a
	// waiting batch (see Config.StoreBatchDelay): far longer than the gap
	// between pages of a busy crawl (a fraction of a millisecond), short
	// beside a round trip to a site, so that a crawl whose next pages
	// depend on the links held in the batch (its start, a small site) is
	// not slowed down by the wait.
	StoreBatchPause = 2 * time.Millisecond
	// StoreBatchBytes is the content (bodies and extracted text) at which
	// a batch of pages is written whatever its size, so that the pages
	// held for a batch stay bounded in memory however large each is.
	StoreBatchBytes = 32 << 20
	// DefaultGraphWriters is how many batches of pages are written to the
	// graph at once. Two is enough for a store across a network: one
	// batch is gathered and sent while the other is on the wire, so the
	// stage is not held to one round trip at a time.
	DefaultGraphWriters = 2
)

// ErrInvalidConfig is matched (errors.Is) by the errors of NewCrawler and
// the stage constructors for a Config they cannot use: an *OptionError.
var ErrInvalidConfig = errors.New("crawler: invalid config")

// OptionError is the error for a setting that cannot be used: which one,
// its value and what is wrong with it, so that a program can say which of
// its own inputs (a flag, a key of a file) was at fault without reading the
// message. Its text reads "FetchOptions.Workers: -1 is negative". It
// matches ErrInvalidConfig (errors.Is). Package engine reports the
// mistakes of its Options with it too.
type OptionError struct {
	// Field is the setting's path from the struct that holds it:
	// "FetchOptions.Workers", "FetchOptions.Retry.BaseDelay",
	// "Config.Gates[2]", "Options.PerHost" (package engine's).
	Field string
	// Value is the value refused (the item at fault, for a list), or nil
	// for a missing one.
	Value any
	// Problem says what is wrong: "is negative", "is nil".
	Problem string
}

func (e *OptionError) Error() string {
	switch v := e.Value.(type) {
	case nil:
		return e.Field + " " + e.Problem
	case string:
		return fmt.Sprintf("%s: %q %s", e.Field, v, e.Problem)
	default:
		return fmt.Sprintf("%s: %v %s", e.Field, v, e.Problem)
	}
}

// Is reports whether target is ErrInvalidConfig.
func (e *OptionError) Is(target error) bool { return target == ErrInvalidConfig }

// negative is the error for a setting below zero.
func negative(field string, v any) *OptionError {
	return &OptionError{Field: field, Value: v, Problem: "is negative"}
}

// Config configures a Crawler. Every field is optional; the zero Config
// crawls the public web with the defaults below and writes nowhere (set
// Graph and Index to keep the stores current).
type Config struct {
	// FetchOptions are how pages are requested and accepted: workers,
	// user agent, private networks, timeouts, redirects, retries, URL
	// normalisation, recording. Their fields are promoted (cfg.Workers).
	FetchOptions

	// Graph receives the crawled pages, the links found on them and the
	// edges between them. Default: nil, no graph updater stage.
	Graph Graph

	// Index receives each crawled page's title and text, unless the page
	// asked not to be indexed. Default: nil, no indexer stage.
	Index Indexer

	// StoreBatchSize is the most pages written to the graph, or to the
	// index, in one batch. 1 writes every page on its own. Default:
	// DefaultStoreBatchSize. A batch also closes once its pages hold
	// StoreBatchBytes of content (body and text), so that a run of large
	// pages does not pile up in memory.
	StoreBatchSize int

	// StoreBatchDelay is the longest a batch waits for more pages, from
	// its first page on, while pages keep arriving: a batch is written
	// as soon as the pages stop coming (a pause of StoreBatchPause), so a
	// page waits only while others are on their way to share its write.
	// Negative: batches never wait, and hold the pages that arrived
	// while the previous one was being written. Default:
	// DefaultStoreBatchDelay.
	StoreBatchDelay time.Duration

	// GraphWriters is how many batches are written to the graph at once,
	// each by its own worker calling Graph concurrently; with an Index, as
	// many batches go to the index at once, beside them. 1 writes one
	// batch after the other. Default: DefaultGraphWriters.
	GraphWriters int

	// Gates, if set, are asked in order, before each request and after the
	// built-in checks, whether the URL may be fetched; the first error stops
	// the page (see Gate). They are where a Crawl's own policies plug in
	// (package engine's crawl applies its scope and robots.txt in its
	// Frontier's Admit instead): a gate can be built on robots.Fetch and
	// Rules.AllowedURL, or be a ScopeGate for a scope.
	Gates []Gate

	// Processors receive every crawled page beside the graph updater and
	// the indexer, each its own copy, to extract structured items or
	// archive pages. A processor's error aborts the crawl; returning a nil
	// payload drops only its copy. Default: none.
	Processors []pipeline.Processor

	// Renderer, if set, renders the HTML pages Render picks, between the
	// fetch and the extraction: their links and text are read from the
	// rendered document, which later stages and Processors get as the
	// page's Body (Outcome.Render says which pages, and how it went). A
	// page whose render fails is crawled as served. Pages only: imports
	// are never rendered.
	Renderer Renderer

	// Render says which pages Renderer renders (see RenderMode). Under
	// RenderAuto, a page with no script is never rendered; one whose
	// HTML is a shell its scripts fill (an empty mount point of a known
	// framework, a <noscript> asking for JavaScript, next to no text) is,
	// and for the others the yield of the host's renders decides: a
	// host's first three scripted pages, and its 8th, 16th, 32nd...
	// (three of those at most while none yielded), are rendered to
	// measure it; its scripted pages are rendered while at least half of
	// its recent renders found a link to the host or text the page as
	// served does not hold, its shells only while fewer do, none while
	// none do. Default: RenderNever; a Renderer needs another mode.
	Render RenderMode

	// OnOutcome, if set, receives the Outcome of every URL of a crawl, once,
	// before Crawl returns (after the Frontier's Done). It is called from
	// the pipeline's goroutines, concurrently, and should return quickly.
	OnOutcome func(Outcome)
}

// Check reports the first setting of cfg that cannot be used, as an
// *OptionError (see FetchOptions.Check for the fetch settings'). NewCrawler
// makes the same check; a program can make it before it opens its stores.
func (cfg Config) Check() error {
	if err := cfg.FetchOptions.Check(); err != nil {
		return err
	}
	switch {
	case cfg.StoreBatchSize < 0:
		return negative("Config.StoreBatchSize", cfg.StoreBatchSize)
	case cfg.GraphWriters < 0:
		return negative("Config.GraphWriters", cfg.GraphWriters)
	}
	switch {
	case cfg.Render >= numRenderModes:
		return &OptionError{Field: "Config.Render", Value: cfg.Render, Problem: "is not a RenderMode"}
	case cfg.Render != RenderNever && cfg.Renderer == nil:
		return &OptionError{Field: "Config.Renderer", Problem: "is nil with Config.Render " + cfg.Render.String()}
	}
	for i, g := range cfg.Gates {
		if g == nil {
			return &OptionError{Field: fmt.Sprintf("Config.Gates[%d]", i), Problem: "is nil"}
		}
	}
	for i, p := range cfg.Processors {
		if p == nil {
			return &OptionError{Field: fmt.Sprintf("Config.Processors[%d]", i), Problem: "is nil"}
		}
	}
	return nil
}

// withDefaults checks cfg and fills in the defaults.
func (cfg Config) withDefaults() (Config, error) {
	if err := cfg.Check(); err != nil {
		return cfg, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	cfg.FetchOptions = cfg.FetchOptions.WithDefaults()
	if cfg.StoreBatchSize == 0 {
		cfg.StoreBatchSize = DefaultStoreBatchSize
	}
	if cfg.StoreBatchDelay == 0 {
		cfg.StoreBatchDelay = DefaultStoreBatchDelay
	}
	if cfg.GraphWriters == 0 {
		cfg.GraphWriters = DefaultGraphWriters
	}
	return cfg, nil
}

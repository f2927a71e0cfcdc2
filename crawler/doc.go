// Package crawler fetches web pages, extracts their links and text, and
// keeps a link graph and a text index current, as a pipeline built on
// package pipeline:
//
//	source (a Frontier's pages)
//	  → fetch (fixed worker pool; gates, redirects, a HEAD first if
//	    FetchOptions.HeadFirst, retries under FetchOptions.Retry)
//	  → render the pages Config.Render picks with Config.Renderer (a
//	    headless browser: package render, bound by package engine), if
//	    set: the rendered document takes the page's place
//	  → extract links, and the text when something consumes it, in one
//	    pass of the tokenizer (a worker per CPU)
//	  → the stores side by side (a scatter-gather stage, in batches): the
//	    graph updater (links and edges) and the text indexer
//	  → mark the pages retrieved in the graph (in batches)
//	  → user processors (each its own copy, by broadcast)
//	  → sink (counts pages)
//
// The two stores are written at once, each a batch at a time, and the
// stage lets a page go on only when both have it: a page counts as
// retrieved in the graph, which is how a crawl knows it is done, only once
// every store has it, so a crash in between leaves it due again. Its links
// reach the graph, and the frontier fed from it, as soon as the graph's
// half of the stage has stored them, without waiting for the index. (A
// redirected page, or a link the source gave without an ID, is indexed by
// the marking stage instead: its ID, the final URL's, is what the graph
// updater learns.)
// Links and text share the tokenizer's one pass (PageExtractor), which
// costs less than the second pass it saves; a crawl without an index
// extracts the links alone (LinkExtractor). Each store stage writes pages
// in batches that wait for more pages while they keep arriving (up to
// Config.StoreBatchDelay) and go as soon as the arrivals pause, or as soon
// as the crawl's frontier, with nothing else to hand out, asks for them
// (the starved callback of Frontier.Next), so a store that syncs to disk
// costs a commit per batch, not per page, and a page's outcome is reported
// only once it is stored.
//
// # The one contract: Frontier
//
// Where pages come from and how their requests are paced is one interface
// the crawler consumes, Frontier, of seven methods. A page's way through a
// crawl is these calls, in order:
//
//	Next         the frontier hands the page out (new, or parked before)
//	Admit        before each URL the page is fetched at: its own, then
//	             every redirect's target (after the crawler's own checks
//	             and Config.Gates)
//	Begin        right before each request (GET, HEAD, redirect hop,
//	             retry); when it refuses, or a retry or Admit must wait:
//	Park         the page goes back, and comes out of Next again later,
//	             resuming where it stopped
//	KnownLinkID  while the graph updater stores the page: links the
//	             frontier knows are not upserted again
//	Found        then, before the edges are written: the links the page
//	             follows, with their IDs (the frontier's discovery)
//	Done         the page's outcome, once, when its last copy leaves
//
// CrawlFrom runs the pipeline over a Frontier; package engine's is the
// whole polite, recursive crawl (robots.txt, per-host limits at the moment
// each request starts, scope, depth, discovery, resume), and a page that
// must wait for its host is parked there rather than holding a fetch
// worker. Crawl, the book's API, is CrawlFrom over a LinkFrontier: one
// pass over the links a linkgraph.LinkIterator hands out, with no
// robots.txt, per-host limit or discovery of its own. A caller who brings
// their own frontier implements the seven methods (or wraps LinkFrontier).
//
// # Optional capabilities
//
// Apart from the Frontier, the crawler's collaborators are small required
// interfaces (URLGetter, PrivateNetworkDetector, Graph, Indexer), and the
// crawler looks for four optional capabilities on them, where it uses
// them; each makes the crawl faster or safer, and each has its fallback:
//
//	EdgeRefresher     on the Graph (every linkgraph backend): conditional
//	                  requests on recrawls; without it every page is
//	                  fetched whole
//	BatchIndexer      on the Indexer (textindex, every backend): a batch of
//	                  pages in one call; without it concurrent Index calls
//	RedirectDisabler  on the URLGetter (an *http.Client is recognised too):
//	                  every redirect hop checked; without it the getter may
//	                  follow redirects itself and only the final URL is
//	                  checked
//	Control           on the PrivateNetworkDetector (a dial-time guard, as
//	                  *privnet.Detector has): the default URLGetter checks
//	                  dialled addresses with it; without it, with the guard
//	                  of privnet.New(), which allows no private network
//
// A recrawl is conditional: a page's validators from the graph (its last
// ETag and Last-Modified) go with the request for its own URL, and a 304
// answer, or a site's word that the page has not changed since its
// retrieval (Payload.ModifiedAt, a sitemap's lastmod), makes it Unchanged:
// nothing is downloaded, parsed or indexed, and the graph only refreshes
// the page's retrieval time and its edges' (EdgeRefresher).
//
// A FetchOptions.Recorder is given every GET response as the server sent
// it, to archive the crawl (WARCRecorder writes them to WARC files with
// package archive/warc); Import runs such archived responses through the
// stages after the fetch, to rebuild the stores without fetching anything
// (WARCPages reads them from WARC files).
//
// How pages are fetched (workers, user agent, private networks, timeouts,
// redirects, retries, URL normalisation, recording) is one struct,
// FetchOptions, which Config embeds and package engine's Options embeds
// too: each setting has one name, one default (FetchOptions.WithDefaults)
// and one check (FetchOptions.Check, Config.Check), whose errors are
// *OptionError values naming the setting. The zero RetryPolicy retries
// transient failures twice; MaxRetries -1 turns retries off.
//
// The payload type and every stage are exported
// (Stages, NewFetcher, NewLinkExtractor, ...) so that a caller can assemble a
// pipeline of their own.
//
// The crawler is meant to be pointed at the open web. Pages are read through
// a bounded buffer, only HTML is processed, links to literal private
// addresses are dropped when they are extracted, and the default URLGetter
// refuses, when it dials, any address that package privnet deems private,
// so neither DNS tricks nor redirects reach the caller's own network.
//
// Every URL that enters a crawl is reported exactly once, through
// Config.OnOutcome, with what happened to it: crawled, skipped (and why) or
// failed (and how).
package crawler

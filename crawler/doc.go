// Package crawler fetches web pages, extracts their links and text, and
// keeps a link graph and a text index current, as a pipeline built on
// package pipeline:
//
//	source (a linkgraph.LinkIterator)
//	  → fetch (fixed worker pool; gates, redirects, a HEAD first if
//	    FetchOptions.HeadFirst, retries under FetchOptions.Retry)
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
// as the crawl asks for them because it has nothing else to fetch
// (Config.StoreFlush), so a store that syncs to disk costs a commit per
// batch, not per page, and a page's outcome is reported only once it is
// stored.
//
// Crawler runs that pipeline over the links a linkgraph.LinkIterator hands
// out: one pass, with no frontier, robots.txt or per-host limit of its own.
// Package engine builds the whole polite, recursive crawl on it: its
// frontier is the iterator and the Config.Scheduler that every request
// starts through, so per-host limits hold at the moment each request (a
// page, a HEAD, a redirect hop, a retry) starts, and a page that must wait
// for its host is parked there rather than holding a fetch worker.
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

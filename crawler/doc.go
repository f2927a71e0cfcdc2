// Package crawler fetches web pages, extracts their links and text, and
// keeps a link graph and a text index current, as a pipeline built on
// package pipeline:
//
//	source (a linkgraph.LinkIterator)
//	  → fetch (fixed worker pool)
//	  → extract links
//	  → extract text (only when something consumes it)
//	  → broadcast to the graph updater, the text indexer and user processors
//	  → sink (counts pages)
//
// Crawler runs that pipeline; the payload type and every stage are exported
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

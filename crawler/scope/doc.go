// Package scope decides which discovered links the crawler fetches.
//
// A Scope is built once from a Config and the seed URLs and is then safe
// for concurrent use. Check returns a Reason: InScope, or the first rule that
// rejected the link, so a crawl report can tell the user why a page was not
// fetched. Scope only governs fetching: the crawler still records every
// discovered link in the graph.
//
// The rules, applied cheapest first: maximum depth from the seeds, same
// host as a seed, accepted registrable domains (eTLD+1 by the public suffix
// list), exclude patterns, include patterns, and a user filter function
// (the equivalent of gocrawl's Filter hook).
package scope

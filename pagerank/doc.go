// Package pagerank computes PageRank over a link graph and writes the
// scores to a text index, where search combines them with relevance.
//
// Compute reads the graph once: its links, numbered densely, and its
// edges, kept as pairs of those numbers (8 bytes an edge) in memory up to
// Options.MemoryLimit and in a temporary file beyond it. It then iterates
// over those edges, not over the store: grouped by target (4 bytes an
// edge) when that fits in the limit too, so that each page pulls its rank
// from its sources and the CPUs share every iteration, each with its own
// pages; otherwise streamed as pairs. PageRank with damping d (0.85),
// where a page's rank is shared equally among the pages it links to and
// the rank of pages without outgoing edges (dangling pages) is spread
// evenly over all pages, until the L1 change of the rank vector between
// two iterations is below Options.Tolerance (1e-6) or Options.MaxIterations
// (100) is reached. Ranks sum to 1.
//
// Write stores the scores with UpdateScores, a few thousand a call, so that
// each call is one transaction of the index.
package pagerank

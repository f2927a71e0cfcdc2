package main

import (
	"context"
	"fmt"
	"time"

	"github.com/linksrus/linksrus/pagerank"
)

// runRank computes PageRank over the link graph and writes the scores to
// the index, where search combines them with relevance.
func runRank(ctx context.Context, env *environment, args []string) error {
	fs := newFlagSet(env, "rank", "rank [flags]")
	var sf storeFlags
	sf.register(fs, env)
	memLimit := fs.Int64("memory", pagerank.DefaultMemoryLimit, "keep at most `BYTES` of edges in memory (8 an edge); the rest goes to a temporary file")
	rest, err := parseFlags(env, fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError(env, fs, "unexpected arguments: %v", rest)
	}
	if sf.index == "none" {
		return usageError(env, fs, "--index none: there is no index to write the scores to")
	}
	if *memLimit <= 0 {
		return usageError(env, fs, "--memory must be positive")
	}
	st, err := openStores(ctx, &sf, true, false)
	if err != nil {
		return err
	}
	defer st.Close()
	_, err = rank(ctx, env, st, *memLimit)
	return err
}

// rank computes and writes the scores, and says what it did.
func rank(ctx context.Context, env *environment, st *stores, memLimit int64) (links int64, err error) {
	start := time.Now()
	res, err := pagerank.Compute(ctx, st.graph, pagerank.Options{MemoryLimit: memLimit})
	if err != nil {
		return 0, fmt.Errorf("rank: %w", err)
	}
	computed := time.Since(start)
	if err := res.Write(ctx, st.index); err != nil {
		return 0, fmt.Errorf("rank: %w", err)
	}
	written := time.Since(start)
	// Anchor text changes when pages do, as PageRank does: it is
	// refreshed with the scores.
	if err := st.index.UpdateAnchors(ctx); err != nil {
		return 0, fmt.Errorf("rank: %w", err)
	}
	fmt.Fprintf(env.stdout, "ranked %d URLs over %d links in %d iterations (%.2fs, scores written in %.2fs, anchor text in %.2fs)\n",
		len(res.IDs), res.Edges, res.Iterations, computed.Seconds(), (written - computed).Seconds(), (time.Since(start) - written).Seconds())
	// Every link of the graph is a page of the ranking.
	return int64(len(res.IDs)), nil
}

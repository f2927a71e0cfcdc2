package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/linksrus/linksrus/archive/warc"
	"github.com/linksrus/linksrus/crawler"
	"github.com/linksrus/linksrus/crawler/privnet"
	"github.com/linksrus/linksrus/pagerank"
)

// importOptions are the import command's flags.
type importOptions struct {
	stores        storeFlags
	maxBody       int64
	allowNets     stringList
	denyNets      stringList
	sortQuery     bool
	stripTracking bool
	rank          bool
}

func (o *importOptions) register(fs *flag.FlagSet, env *environment) {
	o.stores.register(fs, env)
	fs.Int64Var(&o.maxBody, "max-body", crawler.DefaultMaxBodyBytes, "skip pages larger than `BYTES` (decoded)")
	fs.Var(&o.allowNets, "allow-net", "keep links to this private network `CIDR`, as crawl --allow-net does (repeatable)")
	fs.Var(&o.denyNets, "deny-net", "drop links to this network `CIDR`, as crawl --deny-net does (repeatable)")
	fs.BoolVar(&o.sortQuery, "sort-query", false, "sort query parameters when normalising links, as crawl --sort-query")
	fs.BoolVar(&o.stripTracking, "strip-tracking", false, "drop tracking parameters when normalising links, as crawl --strip-tracking")
	fs.BoolVar(&o.rank, "rank", true, "compute PageRank at the end (embedded graph only)")
}

// runImport rebuilds the link graph and the text index from WARC files,
// fetching nothing: the crawl's stages after the fetch, fed by the
// archive's responses (see crawler.Crawler.Import).
func runImport(ctx context.Context, env *environment, args []string) error {
	fs := newFlagSet(env, "import", "import [flags] DIR")
	var o importOptions
	o.register(fs, env)
	rest, err := parseFlags(env, fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usageError(env, fs, "one directory of WARC files is required")
	}
	dir := rest[0]
	if o.maxBody == 0 {
		return usageError(env, fs, "--max-body 0 would skip every page; give a size in bytes")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageError(env, fs, "%s is not a directory", dir)
	}
	allow, err := privnet.ParseAllowList(o.allowNets...)
	if err != nil {
		return usageError(env, fs, "--allow-net: %v", err)
	}
	deny, err := privnet.ParseAllowList(o.denyNets...)
	if err != nil {
		return usageError(env, fs, "--deny-net: %v", err)
	}
	// Skipped are the responses the import leaves out for what they are
	// (an error status, a type other than HTML, too large...); a page
	// abandoned by a stop is counted apart.
	var skipped, abandoned atomic.Int64
	cfg := crawler.Config{
		FetchOptions: crawler.FetchOptions{
			PrivateNetworkDetector: privnet.New(allow...).WithDenied(deny...),
			MaxBodyBytes:           o.maxBody,
			SortQuery:              o.sortQuery,
			StripTracking:          o.stripTracking,
		},
		OnOutcome: func(out crawler.Outcome) {
			switch out.Reason {
			case crawler.ReasonCrawled:
			case crawler.ReasonCanceled:
				abandoned.Add(1)
			default:
				skipped.Add(1)
			}
		},
	}
	// The option values are the crawler's to check, before any store is
	// opened.
	if err := cfg.Check(); err != nil {
		return usageError(env, fs, "%v", flagError(err))
	}
	st, err := openStores(ctx, &o.stores, true, true)
	if err != nil {
		return err
	}
	defer st.Close()
	mark := rankMark{links: -1}
	if o.stores.embeddedGraph() && st.index != nil {
		// The import changes the graph: the last ranking's scores no
		// longer vouch for it (see rankMark).
		if mark, err = takeRankMark(&o.stores); err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}

	// The first interrupt stops reading the archive and lets the pages
	// read so far be stored, so that the count printed is what the stores
	// hold; a second one abandons them. Either way what was stored is
	// kept (importing again stores the same pages again, harmlessly).
	ctx, abandon := context.WithCancel(ctx)
	defer abandon()
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-env.interrupts:
		case <-done:
			return
		}
		// Reading stops before the note is printed: whoever has read the
		// note finds the import interrupted, even if the archive ends at
		// that moment (TestInterruptedImport closes it on the note).
		stopReading()
		fmt.Fprintln(env.stderr, "linksrus import: interrupted: storing the pages read (interrupt again to abandon them)")
		select {
		case <-env.interrupts:
			fmt.Fprintln(env.stderr, "linksrus import: interrupted again: abandoning the pages read")
			abandon()
		case <-done:
		}
	}()

	cfg.Graph = st.graph
	if st.index != nil {
		cfg.Index = st.index
	}
	c, err := crawler.NewCrawler(cfg)
	if err != nil {
		return err
	}
	n, err := c.Import(ctx, crawler.WARCPages(warc.ReadDir(readCtx, dir, o.maxBody)))
	fmt.Fprintf(env.stdout, "imported %d pages from %s (%d responses skipped)\n", n, dir, skipped.Load())
	if a := abandoned.Load(); a > 0 {
		// Not counted above; some may be stored in part.
		fmt.Fprintf(env.stdout, "abandoned %d pages read and not finished (importing again stores them)\n", a)
	}
	if readCtx.Err() != nil { // interrupted, or ctx done
		return errInterrupted
	}
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if n == 0 {
		return errors.New("import: no page in " + dir + " (WARC files are named *.warc or *.warc.gz)")
	}
	if o.rank && o.stores.embeddedGraph() && st.index != nil {
		n, err := rank(ctx, env, st, pagerank.DefaultMemoryLimit)
		if err != nil {
			return err
		}
		return mark.put(n)
	}
	return nil
}

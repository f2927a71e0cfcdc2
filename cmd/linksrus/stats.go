package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/textindex"
)

// graphStats summarises a link graph and its index, in the project's
// words: URLs the graph knows, of them pages crawled and URLs not fetched,
// and links (from a crawled page to a URL; the graph's edges).
type graphStats struct {
	URLs           uint64 `json:"urls"`
	Crawled        uint64 `json:"crawled"`
	NotFetched     uint64 `json:"not_fetched"`
	Links          uint64 `json:"links"`
	IndexedPages   uint64 `json:"indexed_pages"`
	IndexBytes     int64  `json:"index_bytes,omitempty"`
	GraphBytes     int64  `json:"graph_bytes,omitempty"`
	IndexAvailable bool   `json:"index_available"`
	// Crawling: a crawl holds the embedded graph, and the graph's figures
	// are those it recorded AsOf (links unknown).
	Crawling bool      `json:"crawling,omitempty"`
	AsOf     time.Time `json:"as_of,omitzero"`
}

func runStats(ctx context.Context, env *environment, args []string) error {
	fs := newFlagSet(env, "stats", "stats [flags]")
	var sf storeFlags
	sf.register(fs, env)
	asJSON := fs.Bool("json", false, "print the statistics as JSON")
	rest, err := parseFlags(env, fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError(env, fs, "unexpected arguments: %v", rest)
	}
	st, err := openStoresForReading(ctx, &sf)
	if errors.Is(err, linkgraph.ErrLocked) && sf.graph == "" {
		// A crawl holds the embedded graph: what it recorded, and the
		// index as it is now, rather than nothing.
		return crawlingStats(ctx, env, &sf, *asJSON)
	}
	if err != nil {
		return err
	}
	defer st.Close()

	s, err := collectStats(st.graph, st.index)
	if err != nil {
		return err
	}
	if sf.graph == "" {
		s.GraphBytes = fileSize(filepath.Join(sf.data, "graph.db"))
	}
	if sf.index == "" {
		s.IndexBytes = fileSize(filepath.Join(sf.data, "index.db"))
	}
	if *asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	w := env.stdout
	fmt.Fprintf(w, "URLs known     %d\n", s.URLs)
	fmt.Fprintf(w, "  crawled      %d\n", s.Crawled)
	fmt.Fprintf(w, "  not fetched  %d  (linked from pages but never fetched: out of scope, not reached yet, or failed)\n", s.NotFetched)
	fmt.Fprintf(w, "links          %d  (from the crawled pages to URLs)\n", s.Links)
	if s.IndexAvailable {
		fmt.Fprintf(w, "pages indexed  %d\n", s.IndexedPages)
	} else {
		fmt.Fprintf(w, "pages indexed  (no index)\n")
	}
	if s.GraphBytes > 0 {
		fmt.Fprintf(w, "graph on disk  %s\n", humanBytes(s.GraphBytes))
	}
	if s.IndexBytes > 0 {
		fmt.Fprintf(w, "index on disk  %s\n", humanBytes(s.IndexBytes))
	}
	return nil
}

// crawlingStats prints the figures the running crawl recorded in the data
// directory's status file, with the index counted now.
func crawlingStats(ctx context.Context, env *environment, sf *storeFlags, asJSON bool) error {
	rec := readStatusFile(statusFilePath(sf.data))
	s := graphStats{URLs: rec.URLs, Crawled: rec.Crawled, NotFetched: rec.NotFetched, Crawling: true}
	if sf.index != "none" {
		idx, err := openIndexForReading(ctx, sf)
		if err != nil {
			return err
		}
		defer idx.Close()
		n, ok, err := textindex.Count(ctx, idx)
		if err != nil {
			return fmt.Errorf("count indexed pages: %w", err)
		}
		s.IndexedPages, s.IndexAvailable = n, ok
	}
	if rec.Known {
		s.AsOf = rec.AsOf
	}
	if asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	w := env.stdout
	if !rec.Known {
		fmt.Fprintln(w, "a crawl is running (it holds the graph) and has recorded no figures yet")
	} else {
		fmt.Fprintf(w, "a crawl is running (it holds the graph); its figures as of %s:\n", rec.AsOf.Local().Format(time.TimeOnly))
		fmt.Fprintf(w, "URLs known     %d\n", s.URLs)
		fmt.Fprintf(w, "  crawled      %d\n", s.Crawled)
		fmt.Fprintf(w, "  not fetched  %d\n", s.NotFetched)
	}
	if s.IndexAvailable {
		fmt.Fprintf(w, "pages indexed  %d  (searchable now)\n", s.IndexedPages)
	}
	return nil
}

// collectStats walks the whole graph once; the index is asked about every
// crawled page, since the Indexer interface has no count of its own.
func collectStats(g linkgraph.Graph, idx textindex.Indexer) (graphStats, error) {
	var s graphStats
	it, err := g.Links(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if err != nil {
		return s, fmt.Errorf("list links: %w", err)
	}
	var crawled []uuid.UUID
	for it.Next() {
		l := it.Link()
		s.URLs++
		if l.RetrievedAt.IsZero() {
			s.NotFetched++
			continue
		}
		s.Crawled++
		if idx != nil {
			crawled = append(crawled, l.ID)
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return s, fmt.Errorf("list links: %w", err)
	}
	eit, err := g.Edges(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if err != nil {
		return s, fmt.Errorf("list edges: %w", err)
	}
	for eit.Next() {
		s.Links++
	}
	if err := errors.Join(eit.Error(), eit.Close()); err != nil {
		return s, fmt.Errorf("list edges: %w", err)
	}
	if idx == nil {
		return s, nil
	}
	s.IndexAvailable = true
	for _, id := range crawled {
		_, err := idx.FindByID(id)
		switch {
		case err == nil:
			s.IndexedPages++
		case errors.Is(err, textindex.ErrNotFound):
		default:
			return s, fmt.Errorf("look up indexed page: %w", err)
		}
	}
	return s, nil
}

// indexNote explains an index that cannot answer: nothing crawled yet, or
// pages crawled without an index (--index none), which a later crawl does
// not fetch again by itself. It looks at a sample of crawled pages only.
// It returns "" when the index holds crawled pages.
func indexNote(g linkgraph.Graph, idx textindex.Indexer) string {
	const sample = 100
	it, err := g.Links(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if err != nil {
		return ""
	}
	defer it.Close()
	crawled, indexed := 0, 0
	for crawled < sample && it.Next() {
		l := it.Link()
		if l.RetrievedAt.IsZero() {
			continue
		}
		crawled++
		if _, err := idx.FindByID(l.ID); err == nil {
			indexed++
		}
	}
	switch {
	case crawled == 0:
		return "Nothing has been crawled yet: run 'linksrus crawl URL' first."
	case indexed == 0:
		return "The index holds none of the crawled pages (crawled with --index none?): " +
			"'linksrus crawl --recrawl-after 1s URL' fetches and indexes them again."
	}
	return ""
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

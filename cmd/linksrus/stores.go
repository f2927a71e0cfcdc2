package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/textindex"

	// The backends the command can open, selected by URL scheme.
	_ "github.com/linksrus/linksrus/linkgraph/bolt"
	_ "github.com/linksrus/linksrus/linkgraph/memory"
	_ "github.com/linksrus/linksrus/linkgraph/postgres"
	_ "github.com/linksrus/linksrus/textindex/memory"
	_ "github.com/linksrus/linksrus/textindex/postgres"
	_ "github.com/linksrus/linksrus/textindex/sqlite"
)

// Environment variables that stand in for the store flags, so that database
// URLs with passwords need not appear on command lines.
const (
	envData  = "LINKSRUS_DATA"
	envGraph = "LINKSRUS_GRAPH"
	envIndex = "LINKSRUS_INDEX"
)

const defaultDataDir = "linksrus-data"

// openTimeout bounds opening a store.
const openTimeout = 30 * time.Second

// storeFlags are the flags every command uses to find the link graph and the
// text index.
type storeFlags struct {
	data, graph, index string
}

func (s *storeFlags) register(fs *flag.FlagSet, env *environment) {
	fs.StringVar(&s.data, "data", orDefault(env.getenv(envData), defaultDataDir),
		"embedded data `DIR` holding the link graph and text index, created on first use (env "+envData+")")
	fs.StringVar(&s.graph, "graph", env.getenv(envGraph),
		"link graph `URL` (bolt:///path, memory://, postgres://...); default: the graph in --data (env "+envGraph+")")
	fs.StringVar(&s.index, "index", env.getenv(envIndex),
		"text index `URL` (sqlite:///path, memory://, postgres://..., none); default: the index in --data (env "+envIndex+")")
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// check rejects store flags that cannot mean what they say, before any
// store is opened or created.
func (s *storeFlags) check() error {
	if s.data == "" && (s.graph == "" || s.index == "") {
		return errors.New("--data is empty: name the data directory (the default is " + defaultDataDir + ")")
	}
	return nil
}

// embeddedGraph reports whether the graph is a file only one process can
// open (the default bolt graph), rather than a shared database.
func (s *storeFlags) embeddedGraph() bool {
	return s.graph == "" || hasScheme(s.graph, "bolt") || hasScheme(s.graph, "memory")
}

func hasScheme(u, scheme string) bool {
	return len(u) > len(scheme) && u[len(scheme)] == ':' && strings.EqualFold(u[:len(scheme)], scheme)
}

// graphURL returns the URL of the link graph to open.
func (s *storeFlags) graphURL() (string, error) {
	if s.graph != "" {
		return s.graph, nil
	}
	dir, err := filepath.Abs(s.data)
	if err != nil {
		return "", fmt.Errorf("data directory: %w", err)
	}
	return "bolt://" + filepath.ToSlash(filepath.Join(dir, "graph.db")), nil
}

// indexURL returns the URL of the text index to open, or "" for none.
func (s *storeFlags) indexURL() (string, error) {
	switch s.index {
	case "none":
		return "", nil
	case "":
		dir, err := filepath.Abs(s.data)
		if err != nil {
			return "", fmt.Errorf("data directory: %w", err)
		}
		return "sqlite://" + filepath.ToSlash(filepath.Join(dir, "index.db")), nil
	}
	return s.index, nil
}

// stores are the opened link graph and text index (nil with --index none).
type stores struct {
	graph linkgraph.Graph
	index textindex.Indexer
}

// openStores opens the graph and, when wantIndex, the index. Embedded stores
// create the data directory; a missing directory is an error when create is
// false, so that search and stats do not invent an empty data set.
//
// The index is opened first: it checks its file when it opens, and a
// damaged index must stop a command before the graph is touched (opening
// the embedded graph for writing commits to it).
func openStores(ctx context.Context, s *storeFlags, wantIndex, create bool) (*stores, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if !create && s.graph == "" {
		if _, err := os.Stat(filepath.Join(s.data, "graph.db")); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no crawl data in %s (run \"linksrus crawl\" first, or pass --data, --graph)", s.data)
		}
	}
	gu, err := s.graphURL()
	if err != nil {
		return nil, err
	}
	iu := ""
	if wantIndex {
		if iu, err = s.indexURL(); err != nil {
			return nil, err
		}
	}
	// Opening connects and migrates; a database that does not answer must
	// not hang the command.
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	st := &stores{}
	if iu != "" {
		idx, err := textindex.Open(ctx, iu)
		if err != nil {
			return nil, indexOpenError(err)
		}
		st.index = idx
	}
	g, err := linkgraph.Open(ctx, gu)
	if err != nil {
		return nil, errors.Join(err, st.Close())
	}
	st.graph = g
	return st, nil
}

// openStoresForReading opens the stores for a command that only reads
// them (stats): the embedded graph and index read-only, which works in a
// directory this process may not write to and writes nothing. While a
// crawl holds the embedded graph, opening it fails with linkgraph.ErrLocked.
func openStoresForReading(ctx context.Context, s *storeFlags) (*stores, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if s.graph == "" {
		if _, err := os.Stat(filepath.Join(s.data, "graph.db")); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no crawl data in %s (run \"linksrus crawl\" first, or pass --data, --graph)", s.data)
		}
	}
	gu, err := s.graphURL()
	if err != nil {
		return nil, err
	}
	if hasScheme(gu, "bolt") && !strings.Contains(gu, "?") {
		gu += "?mode=ro"
	}
	st := &stores{}
	// An embedded graph crawled with --index none has no index file: the
	// graph is all there is to read.
	noIndex := s.index == "none" || (s.index == "" && !exists(filepath.Join(s.data, "index.db")))
	if !noIndex {
		if st.index, err = openIndexForReading(ctx, s); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	if st.graph, err = linkgraph.Open(ctx, gu); err != nil {
		return nil, errors.Join(err, st.Close())
	}
	return st, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// indexOpenError says what to do about an index that cannot be opened
// because it is damaged. The graph says the same of itself; for the index
// it matters that the graph still counts the pages as crawled.
func indexOpenError(err error) error {
	if errors.Is(err, textindex.ErrCorrupt) {
		return fmt.Errorf("%w; move it away to start again (the graph still counts its pages as crawled: crawl --recrawl-after fetches them again, import reads them back from WARC files)", err)
	}
	return err
}

// Close closes both stores and returns the first error.
func (s *stores) Close() error {
	var errs []error
	if s.index != nil {
		errs = append(errs, s.index.Close())
	}
	if s.graph != nil {
		errs = append(errs, s.graph.Close())
	}
	return errors.Join(errs...)
}

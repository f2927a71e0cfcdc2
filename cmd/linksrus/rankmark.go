package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/linkgraph"
)

// rankedFileName is the file in the data directory saying that the index's
// PageRank scores are those of the graph as it is, and how many links the
// graph had then. A crawl (or an import) takes it away when it starts
// (it may change the graph and be interrupted before ranking) and puts it
// back after ranking; a crawl whose every page answered 304 Not Modified
// changed no edge, and if the graph still has as many links, its scores
// still hold: ranking again would only cost time (most of a recrawl's, on
// a site that did not change).
const rankedFileName = "ranked"

// rankMark is the marker of the default data directory's stores; the zero
// value (other stores) never skips a rank.
type rankMark struct {
	path  string
	links int64 // read when the crawl started; -1 if there was none
}

// takeRankMark reads and removes the data directory's marker, when the
// crawl uses the data directory's own graph and index (a marker elsewhere
// could not vouch for stores named by URL).
func takeRankMark(sf *storeFlags) (rankMark, error) {
	if sf.graph != "" || sf.index != "" {
		return rankMark{links: -1}, nil
	}
	m := rankMark{path: filepath.Join(sf.data, rankedFileName), links: -1}
	b, err := os.ReadFile(m.path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return m, fmt.Errorf("read %s: %w", m.path, err)
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n >= 0 {
		m.links = n
	}
	if err := os.Remove(m.path); err != nil {
		return m, fmt.Errorf("remove %s: %w", m.path, err)
	}
	return m, nil
}

// stillRanked reports whether the scores of the marker still hold after a
// crawl that changed no page (every page unchanged): the graph has as many
// links as when they were computed.
func (m rankMark) stillRanked(g linkgraph.Graph) (bool, int64, error) {
	if m.path == "" || m.links < 0 {
		return false, 0, nil
	}
	n, err := countLinks(g)
	if err != nil {
		return false, 0, err
	}
	return n == m.links, n, nil
}

// putBackIfRanked writes the marker again after a crawl that fetched no
// page, when the graph still has as many links as when the scores were
// computed.
func (m rankMark) putBackIfRanked(g linkgraph.Graph) error {
	ok, n, err := m.stillRanked(g)
	if err != nil {
		return fmt.Errorf("rank marker: %w", err)
	}
	if !ok {
		return nil
	}
	return m.put(n)
}

// put writes the marker for a graph of n links whose scores the index now
// has.
func (m rankMark) put(n int64) error {
	if m.path == "" {
		return nil
	}
	if err := os.WriteFile(m.path, []byte(strconv.FormatInt(n, 10)+"\n"), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", m.path, err)
	}
	return nil
}

// countLinks counts the graph's links.
func countLinks(g linkgraph.Graph) (int64, error) {
	it, err := g.Links(uuid.Nil, uuid.Nil, time.Now().Add(time.Hour))
	if err != nil {
		return 0, fmt.Errorf("count links: %w", err)
	}
	var n int64
	for it.Next() {
		n++
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return 0, fmt.Errorf("count links: %w", err)
	}
	return n, nil
}

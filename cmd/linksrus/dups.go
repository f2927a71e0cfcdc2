package main

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/simhash"
)

// duplicateGroup is a set of crawled URLs with the same text (identical
// ContentHash), canonical first: the one search shows.
type duplicateGroup struct {
	URLs []string `json:"urls"`
}

// nearDuplicateGroup is a set of crawled pages whose texts' simhashes are
// within simhash.Threshold bits, pair by pair along a chain (see
// simhash.Groups); each stands for its exact duplicates too.
type nearDuplicateGroup struct {
	URLs        []string `json:"urls"`
	MaxDistance int      `json:"max_distance_bits"`
}

// indexedPage is what the duplicate report needs of a crawled page's
// document.
type indexedPage struct {
	url     string
	doc     *textindex.Document // without its text, kept only for ordering
	simhash uint64
}

// finder is the part of an index the report reads.
type finder interface {
	FindByID(linkID uuid.UUID) (*textindex.Document, error)
}

// duplicates reads the documents of the pages crawled with ids from idx
// and groups them: identical text by ContentHash, near-duplicate text by
// simhash. It reads each page's text once, after the crawl, so that the
// crawl itself pays nothing for the report; pages the index does not hold
// (noindex, --index none) are left out, and a redirect stands for the page
// it led to (the report lists the redirect itself as final_url).
func duplicates(idx finder, ids []uuid.UUID) ([]duplicateGroup, []nearDuplicateGroup, error) {
	byHash := map[string][]indexedPage{}
	var hashes []string
	seen := map[uuid.UUID]bool{}
	for _, id := range ids {
		if id == uuid.Nil || seen[id] {
			continue
		}
		seen[id] = true
		d, err := idx.FindByID(id)
		if errors.Is(err, textindex.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read the crawled pages' text: %w", err)
		}
		if d.Redirect && d.DuplicateOf != uuid.Nil && !seen[d.DuplicateOf] {
			// The page the redirect led to.
			seen[d.DuplicateOf] = true
			d, err = idx.FindByID(d.DuplicateOf)
			if errors.Is(err, textindex.ErrNotFound) {
				continue // re-indexed since: not this crawl's to report
			}
			if err != nil {
				return nil, nil, fmt.Errorf("read the crawled pages' text: %w", err)
			}
		}
		if d.Redirect || d.ContentHash == "" {
			continue
		}
		p := indexedPage{url: d.URL, simhash: simhash.OfPage(d.Title, d.Content)}
		d.Title, d.Content = "", ""
		p.doc = d
		if len(byHash[d.ContentHash]) == 0 {
			hashes = append(hashes, d.ContentHash)
		}
		byHash[d.ContentHash] = append(byHash[d.ContentHash], p)
	}
	slices.Sort(hashes) // a stable report, whatever the crawl's order
	var (
		exact []duplicateGroup
		reps  []indexedPage // one page per ContentHash: its canonical
	)
	for _, h := range hashes {
		g := byHash[h]
		slices.SortFunc(g, func(a, b indexedPage) int { return textindex.CompareCanonical(a.doc, b.doc) })
		reps = append(reps, g[0])
		if len(g) > 1 {
			exact = append(exact, duplicateGroup{URLs: urlsOf(g)})
		}
	}
	fps := make([]uint64, len(reps))
	for n, p := range reps {
		fps[n] = p.simhash
	}
	var near []nearDuplicateGroup
	for _, members := range simhash.Groups(fps, simhash.Threshold) {
		g := make([]indexedPage, len(members))
		for n, m := range members {
			g[n] = reps[m]
		}
		slices.SortFunc(g, func(a, b indexedPage) int { return textindex.CompareCanonical(a.doc, b.doc) })
		far := 0
		for a := range g {
			for b := a + 1; b < len(g); b++ {
				far = max(far, simhash.Distance(g[a].simhash, g[b].simhash))
			}
		}
		near = append(near, nearDuplicateGroup{URLs: urlsOf(g), MaxDistance: far})
	}
	slices.SortFunc(near, func(a, b nearDuplicateGroup) int { return cmp.Compare(a.URLs[0], b.URLs[0]) })
	slices.SortFunc(exact, func(a, b duplicateGroup) int { return cmp.Compare(a.URLs[0], b.URLs[0]) })
	return exact, near, nil
}

func urlsOf(g []indexedPage) []string {
	out := make([]string, len(g))
	for n, p := range g {
		out[n] = p.url
	}
	return out
}

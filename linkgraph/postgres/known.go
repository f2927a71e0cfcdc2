package postgres

import "sync"

// knownLinksMax is how many link IDs a generation of knownLinks holds: a
// crawl upserts a batch's edges right after the batch's links, so the IDs
// it needs are the last few thousand it saw.
const knownLinksMax = 1 << 15

// knownLinks remembers IDs of links this graph has seen stored (upserted,
// or read from the crawl queue), so that an edge batch checks in the
// database only the ends it has not seen: with a large links table, those
// checks are an index lookup per end, and a crawl's edges join links it
// has just upserted. Links are never removed from a graph (the Graph API
// has no way to), so an ID once seen stored stays valid; a database that
// loses links behind the program's back (a backup restored, a failover to
// a replica that missed commits, rows deleted by hand) needs its crawlers
// restarted, or they may store edges to links that are gone, as they may
// through any other process's cache. It holds two
// generations of at most knownLinksMax IDs; the older is dropped when the
// newer fills, which bounds it at about 2 MiB.
type knownLinks struct {
	mu       sync.Mutex
	cur, old map[[16]byte]struct{}
}

// add records ids as stored.
func (k *knownLinks) add(ids ...[16]byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, id := range ids {
		if k.cur == nil || len(k.cur) >= knownLinksMax {
			k.old, k.cur = k.cur, make(map[[16]byte]struct{}, knownLinksMax/4)
		}
		k.cur[id] = struct{}{}
	}
}

// forget drops every ID (benchmarks and tests that empty the tables).
func (k *knownLinks) forget() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.cur, k.old = nil, nil
}

// unknown returns the IDs in lists that are not known to be stored, each
// once, in the order first met; never nil (NULL).
func (k *knownLinks) unknown(lists ...uuidArray) uuidArray {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := uuidArray{}
	var seen map[[16]byte]struct{}
	for _, ids := range lists {
		for _, id := range ids {
			if _, ok := k.cur[id]; ok {
				continue
			}
			if _, ok := k.old[id]; ok {
				continue
			}
			if seen == nil {
				seen = make(map[[16]byte]struct{})
			}
			if _, ok := seen[id]; !ok {
				seen[id] = struct{}{}
				out = append(out, id)
			}
		}
	}
	return out
}

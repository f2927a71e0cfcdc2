package engine

import "github.com/google/uuid"

// linkIDs is a cache of link IDs by URL that holds at most max links, in
// two generations of up to max/2: once the newer one is full it becomes
// the older one, and the older one is dropped (its table kept for the
// next). A link asked for while in the older generation moves to the
// newer, so that the links found again and again (a site's navigation, on
// every page) stay, while the others age out. Its memory follows max, not
// the links of the run: a Go map entry of a string and an ID (about 50
// bytes with the table's slack) and the URL, about 7 MiB at max 1<<16 for
// 60-byte URLs (TestKnownLinksBounded).
type linkIDs struct {
	cur, old map[string]uuid.UUID
	half     int
}

func newLinkIDs(n int) *linkIDs {
	return &linkIDs{cur: make(map[string]uuid.UUID), old: make(map[string]uuid.UUID), half: max(1, n/2)}
}

// get returns the ID of url, if the cache has it.
func (c *linkIDs) get(url string) (uuid.UUID, bool) {
	if id, ok := c.cur[url]; ok {
		return id, true
	}
	id, ok := c.old[url]
	if ok {
		delete(c.old, url)
		c.put(url, id)
	}
	return id, ok
}

// put records the ID of url.
func (c *linkIDs) put(url string, id uuid.UUID) {
	if _, ok := c.cur[url]; !ok && len(c.cur) >= c.half {
		clear(c.old)
		c.cur, c.old = c.old, c.cur
	}
	c.cur[url] = id
}

// size is the number of links held.
func (c *linkIDs) size() int { return len(c.cur) + len(c.old) }

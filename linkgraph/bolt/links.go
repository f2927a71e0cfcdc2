package bolt

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/internal/graphutil"
	bbolt "go.etcd.io/bbolt"
)

// UpsertLink implements linkgraph.Graph.
func (g *Graph) UpsertLink(l *linkgraph.Link) error {
	if err := graphutil.ValidateLink(l); err != nil {
		return fmt.Errorf("bolt graph: upsert link: %w", err)
	}
	if err := g.upsertLinks([]*linkgraph.Link{l}); err != nil {
		return fmt.Errorf("bolt graph: upsert link: %w", err)
	}
	return nil
}

// UpsertLinks implements linkgraph.Graph.
func (g *Graph) UpsertLinks(links []*linkgraph.Link) error {
	if err := g.upsertLinks(links); err != nil {
		return fmt.Errorf("bolt graph: upsert links: %w", err)
	}
	return nil
}

func (g *Graph) upsertLinks(links []*linkgraph.Link) error {
	clock := graphutil.NewClock()
	defer clock.Settle()
	b, err := graphutil.DedupLinks(links, clock)
	if err != nil {
		return err
	}
	if len(b.URLs) == 0 {
		return nil
	}
	stored := make([]linkgraph.Link, len(b.URLs))
	// Most links a crawled page yields are known already. A write
	// transaction costs an fsync even when it changes nothing, so look
	// first; links are never deleted and RetrievedAt only grows, so what
	// the read finds stays true.
	known, err := g.lookupLinks(b, stored)
	if err != nil {
		return err
	}
	if known {
		setStored(links, b, stored)
		return nil
	}
	// bbolt serialises writers, so two upserts of one URL cannot both miss
	// it in the URL index: concurrent callers get the same ID.
	//
	// Keys are written in sorted order: bbolt splits nodes only at commit,
	// so random-order inserts into one transaction shift ever larger nodes
	// and a batch of n links cost O(n²) (a 40,000-link page took seconds).
	err = g.db.update(func(tx *bbolt.Tx) error {
		linksB, urlsB := tx.Bucket(bucketLinks), tx.Bucket(bucketURLs)
		links, urls := newSeeker(linksB), newSeeker(urlsB)
		order := make([]int, len(b.URLs))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(x, y int) int { return strings.Compare(b.URLs[x], b.URLs[y]) })
		type linkPut struct {
			id  uuid.UUID
			val []byte
		}
		var puts []linkPut
		for _, i := range order {
			u := b.URLs[i]
			key := []byte(u)
			if v := urls.get(key); v != nil {
				if len(v) != 16 {
					return fmt.Errorf("corrupt URL index entry for %q", u)
				}
				id := uuid.UUID(v)
				l, err := decodeLink(id[:], links.get(id[:]))
				if err != nil {
					return fmt.Errorf("link %s: %w", id, err)
				}
				stored[i] = *l
				if b.RetrievedAt[i].After(l.RetrievedAt) {
					stored[i].RetrievedAt, stored[i].ETag, stored[i].LastModified = b.RetrievedAt[i], b.ETag[i], b.LastModified[i]
					puts = append(puts, linkPut{id, encodeLink(b.RetrievedAt[i], u, b.ETag[i], b.LastModified[i])})
				}
				continue
			}
			id, err := newLinkID()
			if err != nil {
				return err
			}
			if err := urlsB.Put(key, id[:]); err != nil {
				return fmt.Errorf("index link: %w", err)
			}
			puts = append(puts, linkPut{id, encodeLink(b.RetrievedAt[i], u, b.ETag[i], b.LastModified[i])})
			stored[i] = linkgraph.Link{ID: id, URL: u, RetrievedAt: b.RetrievedAt[i], ETag: b.ETag[i], LastModified: b.LastModified[i]}
		}
		slices.SortFunc(puts, func(x, y linkPut) int { return linkgraph.CompareIDs(x.id, y.id) })
		for _, p := range puts {
			if err := linksB.Put(p.id[:], p.val); err != nil {
				return fmt.Errorf("write link %s: %w", p.id, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	setStored(links, b, stored)
	return nil
}

// setStored hands the stored links back to the caller's values.
func setStored(links []*linkgraph.Link, b *graphutil.LinkBatch, stored []linkgraph.Link) {
	for i, l := range links {
		s := &stored[b.Index[i]]
		l.ID, l.RetrievedAt, l.ETag, l.LastModified = s.ID, s.RetrievedAt, s.ETag, s.LastModified
	}
}

// lookupLinks fills stored from the store and reports whether every link
// of b exists with a RetrievedAt no older than b asks for (so that the
// upsert would change nothing).
func (g *Graph) lookupLinks(b *graphutil.LinkBatch, stored []linkgraph.Link) (bool, error) {
	complete := true
	err := g.db.view(func(tx *bbolt.Tx) error {
		links, urls := newSeeker(tx.Bucket(bucketLinks)), newSeeker(tx.Bucket(bucketURLs))
		for i, u := range b.URLs {
			v := urls.get([]byte(u))
			if len(v) != 16 {
				complete = false
				return nil
			}
			l, err := decodeLink(v, links.get(v))
			if err != nil {
				return fmt.Errorf("link %x: %w", v, err)
			}
			if b.RetrievedAt[i].After(l.RetrievedAt) {
				complete = false
				return nil
			}
			stored[i] = *l
		}
		return nil
	})
	return complete && err == nil, err
}

// FindLink implements linkgraph.Graph.
func (g *Graph) FindLink(id uuid.UUID) (*linkgraph.Link, error) {
	var l *linkgraph.Link
	err := g.db.view(func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucketLinks).Get(id[:])
		if v == nil {
			return linkgraph.ErrNotFound
		}
		var err error
		l, err = decodeLink(id[:], v)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("bolt graph: find link %s: %w", id, err)
	}
	return l, nil
}

// Links implements linkgraph.Graph.
func (g *Graph) Links(fromID, toID uuid.UUID, retrievedBefore time.Time) (linkgraph.LinkIterator, error) {
	// Fail now rather than on the first Next if the graph is closed.
	if err := g.db.view(func(*bbolt.Tx) error { return nil }); err != nil {
		return nil, fmt.Errorf("bolt graph: links: %w", err)
	}
	before := graphutil.Timestamp(retrievedBefore)
	it := &scan[linkgraph.Link]{
		db: g.db, bucket: bucketLinks, from: fromID, to: toID, op: "links",
		decode: func(k, v []byte) (*linkgraph.Link, bool, error) {
			l, err := decodeLink(k, v)
			if err != nil {
				return nil, false, err
			}
			return l, l.RetrievedAt.Before(before), nil
		},
	}
	return graphutil.LinkIterator{Pager: it.pager()}, nil
}

// newLinkID returns the ID of a new link: a UUIDv7, which starts with the
// time it was made. The links found together (a batch of pages) then sit
// together at the end of "links", and so do the pages crawled together in
// "out", since a crawl fetches pages in about the order it found them: a
// commit rewrites a few pages at the end of each bucket instead of one
// page per link all over the file, as random IDs made it (0.83x the wall
// time of a links-only crawl of the rust documentation into bbolt).
func newLinkID() (uuid.UUID, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.Nil, fmt.Errorf("new link ID: %w", err)
	}
	return id, nil
}

// seeker looks keys up in one bucket through one cursor, for the many
// lookups of a batch (a crawl's batch checks thousands of links): a
// Bucket.Get makes a new cursor, and allocates its stack, for every key.
// A Seek starts from the bucket's root, so the bucket may be written
// between lookups.
type seeker struct{ c *bbolt.Cursor }

func newSeeker(b *bbolt.Bucket) seeker { return seeker{b.Cursor()} }

// get returns the value of key, or nil if the bucket lacks it.
func (s seeker) get(key []byte) []byte {
	k, v := s.c.Seek(key)
	if !bytes.Equal(k, key) {
		return nil
	}
	return v
}

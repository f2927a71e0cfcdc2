package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/linksrus/linksrus/linkgraph"
	"github.com/linksrus/linksrus/linkgraph/internal/graphutil"
)

// upsertLinksSQL inserts a batch of links retrieved (a non-zero
// retrieved_at) and, for URLs already present, keeps the later
// retrieved_at, with its validators. Rows whose retrieved_at would not
// change are not rewritten (an update writes a new row version and its
// index entries): DO UPDATE … WHERE only locks them, so that a concurrent
// upsert of the same URL waits and then sees this ID.
var upsertLinksSQL = linksSQL(`DO UPDATE SET retrieved_at = excluded.retrieved_at,
		etag = excluded.etag, last_modified = excluded.last_modified
		WHERE links.retrieved_at < excluded.retrieved_at`)

// insertFoundSQL is upsertLinksSQL for links never retrieved (a zero
// retrieved_at), most of a crawl's writes: the links its pages were found
// to have, many of them known already. Such a link can change no stored
// row, so a conflict does nothing, where DO UPDATE … WHERE would lock the
// row, which writes to it: a batch of links all known takes about 0.8 of
// the time (BenchmarkGraph/UpsertLinksKnown: 1.15-1.25x the links a
// second). A URL another transaction is inserting is waited for as with
// DO UPDATE, then read again by upsertLinks.
var insertFoundSQL = linksSQL(`DO NOTHING`)

// linksSQL returns the statement that inserts a batch of links, resolving
// a URL already present by onConflict, and returns every link of the
// batch as stored: the rows it inserted or changed, then the others read
// back, a join the statement skips when it wrote every row (a crawl's
// batches of new links, its pages marked retrieved). A row that a
// concurrent transaction committed after the statement's snapshot is
// invisible to that second half, and upsertLinks reads it again.
func linksSQL(onConflict string) string {
	return `
WITH input (id, url, retrieved_at, etag, last_modified) AS (
	SELECT * FROM unnest($1::UUID[], $2::TEXT[], $3::TIMESTAMPTZ[], $4::TEXT[], $5::TEXT[])
), changed AS (
	INSERT INTO links (id, url, retrieved_at, etag, last_modified)
	SELECT id, url, retrieved_at, etag, last_modified FROM input
	ON CONFLICT (url) ` + onConflict + `
	RETURNING id, url, retrieved_at, etag, last_modified
)
SELECT id, url, retrieved_at, etag, last_modified FROM changed
UNION ALL
SELECT l.id, l.url, l.retrieved_at, l.etag, l.last_modified FROM links l JOIN input i ON l.url = i.url
WHERE (SELECT count(*) FROM changed) < (SELECT count(*) FROM input)
	AND NOT EXISTS (SELECT 1 FROM changed c WHERE c.url = l.url)`
}

// readLinksSQL reads the rows upsertLinksSQL could not see.
const readLinksSQL = `SELECT id, url, retrieved_at, etag, last_modified FROM links WHERE url = ANY($1::TEXT[])`

// UpsertLink implements linkgraph.Graph.
func (g *Graph) UpsertLink(l *linkgraph.Link) error {
	if err := graphutil.ValidateLink(l); err != nil {
		return fmt.Errorf("postgres graph: upsert link: %w", err)
	}
	if err := g.upsertLinks([]*linkgraph.Link{l}); err != nil {
		return fmt.Errorf("postgres graph: upsert link: %w", err)
	}
	return nil
}

// UpsertLinks implements linkgraph.Graph.
func (g *Graph) UpsertLinks(links []*linkgraph.Link) error {
	if err := g.upsertLinks(links); err != nil {
		return fmt.Errorf("postgres graph: upsert links: %w", err)
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
	if err := g.check(); err != nil {
		return err
	}
	// Sorting by URL makes concurrent batches take row locks in the same
	// order, which keeps them from deadlocking each other.
	order := make([]int, len(b.URLs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return strings.Compare(b.URLs[x], b.URLs[y]) })
	// Links never retrieved and links retrieved go by different
	// statements; a crawl's batches are all of one kind (the links its
	// pages have, then the pages marked retrieved), so each takes one.
	found, retrieved := order[:0:0], order[:0:0]
	for _, j := range order {
		if b.RetrievedAt[j].IsZero() {
			found = append(found, j)
		} else {
			retrieved = append(retrieved, j)
		}
	}
	byURL := make(map[string]storedLink, len(order))
	var urls []string
	for _, part := range []struct {
		order []int
		query string
	}{{found, insertFoundSQL}, {retrieved, upsertLinksSQL}} {
		if len(part.order) == 0 {
			continue
		}
		n := len(part.order)
		ids, some := make(uuidArray, n), make(textArray, n)
		ats, etags, lastMods := make(timeArray, n), make(textArray, n), make(textArray, n)
		for i, j := range part.order {
			ids[i], some[i], ats[i] = uuid.New(), b.URLs[j], b.RetrievedAt[j]
			etags[i], lastMods[i] = b.ETag[j], b.LastModified[j]
		}
		if err := g.readLinks(byURL, part.query, ids, some, ats, etags, lastMods); err != nil {
			return err
		}
		urls = append(urls, some...)
	}
	var missing textArray
	for _, u := range urls {
		if _, ok := byURL[u]; !ok {
			missing = append(missing, u)
		}
	}
	if len(missing) > 0 {
		// Committed by another transaction since the statement began.
		if err := g.readLinks(byURL, readLinksSQL, missing); err != nil {
			return err
		}
	}
	stored := make(uuidArray, 0, len(byURL))
	for _, s := range byURL {
		stored = append(stored, s.id)
	}
	g.known.add(stored...)
	for i, l := range links {
		s, ok := byURL[b.URLs[b.Index[i]]]
		if !ok {
			return fmt.Errorf("database returned no row for %q", l.URL)
		}
		l.ID, l.RetrievedAt, l.ETag, l.LastModified = s.id, s.at, s.etag, s.lastModified
	}
	return nil
}

// storedLink is a link's ID, retrieval time and validators as the database
// has them.
type storedLink struct {
	id                 uuid.UUID
	at                 time.Time
	etag, lastModified string
}

// readLinks runs query, which returns id, url, retrieved_at, etag and
// last_modified rows, and
// adds them to byURL. The query is retried as a whole; only the rows of the
// attempt that succeeds are kept.
func (g *Graph) readLinks(byURL map[string]storedLink, query string, args ...any) error {
	var got []storedURL
	err := retry(g.ctx, func(ctx context.Context) error {
		got = got[:0]
		rows, err := g.pool.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		var r storedURL
		_, err = pgx.ForEachRow(rows, []any{&r.id, &r.url, &r.at, &r.etag, &r.lastModified}, func() error {
			got = append(got, r)
			return nil
		})
		return err
	})
	if err != nil {
		return err
	}
	for _, r := range got {
		byURL[r.url] = storedLink{r.id, r.at.UTC(), r.etag, r.lastModified}
	}
	return nil
}

type storedURL struct {
	id                 uuid.UUID
	url                string
	at                 time.Time
	etag, lastModified string
}

// FindLink implements linkgraph.Graph.
func (g *Graph) FindLink(id uuid.UUID) (*linkgraph.Link, error) {
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("postgres graph: find link %s: %w", id, err)
	}
	l := &linkgraph.Link{ID: id}
	err := retry(g.ctx, func(ctx context.Context) error {
		return g.pool.QueryRow(ctx, "SELECT url, retrieved_at, etag, last_modified FROM links WHERE id = $1", id).Scan(&l.URL, &l.RetrievedAt, &l.ETag, &l.LastModified)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres graph: find link %s: %w", id, linkgraph.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres graph: find link %s: %w", id, err)
	}
	l.RetrievedAt = l.RetrievedAt.UTC()
	return l, nil
}

// Links implements linkgraph.Graph.
func (g *Graph) Links(fromID, toID uuid.UUID, retrievedBefore time.Time) (linkgraph.LinkIterator, error) {
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("postgres graph: links: %w", err)
	}
	before := graphutil.Timestamp(retrievedBefore)
	upper := ""
	if toID != uuid.Nil {
		upper = " AND id < $4"
	}
	first := "SELECT id, url, retrieved_at, etag, last_modified FROM links WHERE id >= $1 AND retrieved_at < $2" + upper + " ORDER BY id LIMIT $3"
	rest := strings.Replace(first, "id >= $1", "id > $1", 1)
	fetch := func(ctx context.Context, last *linkgraph.Link) ([]*linkgraph.Link, error) {
		query, cursor := first, fromID
		if last != nil {
			query, cursor = rest, last.ID
		}
		args := []any{cursor, before, pageSize}
		if toID != uuid.Nil {
			args = append(args, toID)
		}
		rows, err := g.pool.Query(ctx, query, args...)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, func(row pgx.CollectableRow) (*linkgraph.Link, error) {
			l := new(linkgraph.Link)
			err := row.Scan(&l.ID, &l.URL, &l.RetrievedAt, &l.ETag, &l.LastModified)
			l.RetrievedAt = l.RetrievedAt.UTC()
			return l, err
		})
	}
	return graphutil.LinkIterator{Pager: pager(g, "links", graphutil.EmptyRange(fromID, toID), fetch)}, nil
}

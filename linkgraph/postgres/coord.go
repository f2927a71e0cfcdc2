package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/linksrus/linksrus/crawler/robots"
	"github.com/linksrus/linksrus/crawler/workqueue"
	"github.com/linksrus/linksrus/linkgraph"
)

// notifyChannel is the LISTEN/NOTIFY channel on which a process says that a
// host has work nobody holds.
const notifyChannel = "linksrus_crawl"

// Queue is the shared crawl queue of the processes crawling one graph:
// links due by host, host leases, the hosts' politeness state and cached
// robots.txt, and the processes themselves. Get one with Graph.WorkQueue.
// Its methods are safe for concurrent use; the crawl engine is its user.
type Queue struct {
	g       *Graph
	queries atomic.Int64

	mu     sync.Mutex    // held by WaitForWork while it waits
	listen *pgxpool.Conn // the connection LISTENing, once WaitForWork was called

	hungryMu sync.Mutex
	hungry   map[uuid.UUID]bool // each worker's last reported Hungry
}

var (
	_ workqueue.Queue    = (*Queue)(nil)
	_ workqueue.Provider = (*Graph)(nil)
)

// WorkQueue returns a *Queue over the graph's shared crawl queue (see the
// package doc), for the crawl engine's Options.Shared. Each call returns a
// queue of its own, with its own wait for work. Close releases the
// connection a queue holds while it waits for work; the graph's Close does
// too.
func (g *Graph) WorkQueue() workqueue.Queue {
	return &Queue{g: g}
}

// Queries returns the number of statements the queue has sent.
func (q *Queue) Queries() int64 { return q.queries.Load() }

// micros is d in whole microseconds, the unit intervals are passed in
// (as $n * INTERVAL '1 microsecond', which both databases accept).
func micros(d time.Duration) int64 { return d.Microseconds() }

// seconds turns a FLOAT8 number of seconds read back into a Duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// exec runs one statement under the retry policy, counting it.
func (q *Queue) exec(ctx context.Context, op string, f func(ctx context.Context) error) error {
	if err := q.g.check(); err != nil {
		return fmt.Errorf("postgres queue: %s: %w", op, err)
	}
	err := retry(ctx, func(ctx context.Context) error {
		q.queries.Add(1)
		return f(ctx)
	})
	if err != nil {
		return fmt.Errorf("postgres queue: %s: %w", op, err)
	}
	return nil
}

const enqueueSQL = `
WITH q AS (
	INSERT INTO crawl_queue (link_id, host, depth)
	SELECT * FROM unnest($1::UUID[], $2::TEXT[], $3::INT[])
	ON CONFLICT (link_id) DO NOTHING
	RETURNING host
), h AS (
	INSERT INTO crawl_hosts (host)
	SELECT DISTINCT host FROM q ORDER BY host
	ON CONFLICT (host) DO UPDATE SET pending = true
	RETURNING crawl_hosts.host, crawl_hosts.owner
)
SELECT count(*) FILTER (WHERE owner IS NULL) FROM h`

// Enqueue adds links to the queue under their hosts; links already queued
// are left as they are. A host gets a row, marked pending, so that a
// process can claim it. On PostgreSQL, waiting processes are notified when
// a host nobody holds got work.
func (q *Queue) Enqueue(ctx context.Context, links []workqueue.Link) error {
	if len(links) == 0 {
		return nil
	}
	// Sorted by ID, so that concurrent batches lock queue rows in one
	// order; the hosts are locked in name order by the statement.
	links = slices.Clone(links)
	slices.SortFunc(links, func(a, b workqueue.Link) int { return linkgraph.CompareIDs(a.ID, b.ID) })
	links = slices.CompactFunc(links, func(a, b workqueue.Link) bool { return a.ID == b.ID })
	ids := make(uuidArray, len(links))
	hosts := make(textArray, len(links))
	depths := make([]int32, len(links))
	for i, l := range links {
		ids[i], hosts[i], depths[i] = l.ID, l.Host, int32(min(l.Depth, 1<<30))
	}
	var free int64
	err := q.exec(ctx, "enqueue", func(ctx context.Context) error {
		return q.g.pool.QueryRow(ctx, enqueueSQL, ids, hosts, depths).Scan(&free)
	})
	if err != nil || free == 0 {
		return err
	}
	return q.notify(ctx)
}

// notify wakes the processes waiting in WaitForWork.
func (q *Queue) notify(ctx context.Context) error {
	return q.exec(ctx, "notify", func(ctx context.Context) error {
		_, err := q.g.pool.Exec(ctx, "SELECT pg_notify($1, '')", notifyChannel)
		return err
	})
}

const claimSQL = `
WITH c AS (
	SELECT host, owner, lease_expires FROM crawl_hosts
	WHERE pending AND (owner IS NULL OR lease_expires < now()) AND NOT (host = ANY($4::TEXT[]))
	ORDER BY next_at
	LIMIT $2
	FOR UPDATE SKIP LOCKED
)
UPDATE crawl_hosts h SET
	owner = $1,
	lease_expires = now() + $3 * INTERVAL '1 microsecond',
	claimed_at = now(),
	next_at = CASE
		WHEN c.owner IS NOT NULL AND c.owner <> $1
		THEN GREATEST(h.next_at, c.lease_expires)
		ELSE h.next_at END
FROM c
WHERE h.host = c.host
RETURNING h.host,
	GREATEST(EXTRACT(EPOCH FROM (h.next_at - now())), 0)::FLOAT8,
	c.owner IS NOT NULL AND c.owner <> $1,
	CASE WHEN h.robots_expires > now() THEN h.robots_origin END,
	h.robots_basis, h.robots_body,
	CASE WHEN h.robots_expires > now() THEN EXTRACT(EPOCH FROM (h.robots_expires - now()))::FLOAT8 END,
	h.robots_failures, h.robots_error,
	GREATEST(EXTRACT(EPOCH FROM (COALESCE(h.robots_retry_at, now()) - now())), 0)::FLOAT8`

// Claim leases up to n hosts with queued work that nobody holds (never
// held, released, or whose lease expired) to worker for ttl, hosts in
// skip excepted. A host whose lease expired is not started before the
// expiry (Lease.Expired). Hosts are claimed in the order their next
// request may start.
func (q *Queue) Claim(ctx context.Context, worker uuid.UUID, n int, ttl time.Duration, skip []string) ([]workqueue.Lease, error) {
	if n <= 0 {
		return nil, nil
	}
	if skip == nil {
		skip = []string{}
	}
	var out []workqueue.Lease
	err := q.exec(ctx, "claim hosts", func(ctx context.Context) error {
		out = out[:0]
		rows, err := q.g.pool.Query(ctx, claimSQL, worker, n, micros(ttl), skip)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var l workqueue.Lease
			var wait float64
			var origin *string
			var basis *int16
			var body []byte
			var robotsTTL *float64
			var failures int16
			var failure *string
			var retry float64
			if err := rows.Scan(&l.Host, &wait, &l.Expired, &origin, &basis, &body, &robotsTTL,
				&failures, &failure, &retry); err != nil {
				return err
			}
			l.Wait = seconds(wait)
			if origin != nil && basis != nil && robotsTTL != nil {
				l.Robots = &workqueue.Robots{Origin: *origin, Basis: robots.Basis(*basis), Body: body, TTL: seconds(*robotsTTL),
					Failures: int(failures), Retry: seconds(retry)}
				if failure != nil {
					l.Robots.Error = *failure
				}
			}
			out = append(out, l)
		}
		return rows.Err()
	})
	return out, err
}

const renewSQL = `
UPDATE crawl_hosts SET lease_expires = now() + $3 * INTERVAL '1 microsecond'
WHERE owner = $1 AND host = ANY($2::TEXT[])
RETURNING host`

// Renew extends worker's leases on hosts by ttl and returns the hosts it
// still holds; a host missing from the answer was taken over after its
// lease expired, and worker must send it nothing more.
func (q *Queue) Renew(ctx context.Context, worker uuid.UUID, hosts []string, ttl time.Duration) ([]string, error) {
	if len(hosts) == 0 {
		return nil, nil
	}
	var kept []string
	err := q.exec(ctx, "renew leases", func(ctx context.Context) error {
		rows, err := q.g.pool.Query(ctx, renewSQL, worker, hosts, micros(ttl))
		if err != nil {
			return err
		}
		kept, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	return kept, err
}

// Release gives worker's lease on host up: the host's next request may
// start after wait (by the database's clock), and the host stays pending
// if it has queued links, for another process (or this one) to claim.
// Waiting processes are notified either way (on PostgreSQL). Releasing a
// host worker no longer holds does nothing.
func (q *Queue) Release(ctx context.Context, worker uuid.UUID, host string, wait time.Duration) error {
	var pending bool
	err := q.exec(ctx, "release host", func(ctx context.Context) error {
		pending = false
		return pgx.BeginFunc(ctx, q.g.pool, func(tx pgx.Tx) error {
			// The row lock orders this with Enqueue's upsert of the host:
			// links queued before it are seen by the EXISTS below, and an
			// Enqueue waiting for it sets pending again after.
			var owned bool
			err := tx.QueryRow(ctx, "SELECT true FROM crawl_hosts WHERE host = $1 AND owner = $2 FOR UPDATE", host, worker).Scan(&owned)
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			if err != nil {
				return err
			}
			return tx.QueryRow(ctx, `
				UPDATE crawl_hosts SET owner = NULL, lease_expires = NULL,
					next_at = GREATEST(next_at, now() + $3 * INTERVAL '1 microsecond'),
					pending = EXISTS (SELECT 1 FROM crawl_queue WHERE host = $1)
				WHERE host = $1 AND owner = $2
				RETURNING pending`, host, worker, micros(max(wait, 0))).Scan(&pending)
		})
	})
	if err != nil {
		return err
	}
	// Pending or not: a process waiting for the crawl's end looks again.
	return q.notify(ctx)
}

const pullSQL = `
SELECT q.link_id, q.depth, l.url, l.retrieved_at, l.etag, l.last_modified
FROM crawl_queue q JOIN links l ON l.id = q.link_id
WHERE q.host = $1 AND NOT (q.link_id = ANY($2::UUID[]))
ORDER BY q.depth, q.queued_at
LIMIT $3`

// Pull returns up to n links queued under host, shallowest and oldest
// first, except those in skip (already read and not yet done). Only the
// host's owner should call it.
func (q *Queue) Pull(ctx context.Context, host string, skip []uuid.UUID, n int) ([]workqueue.Link, error) {
	if skip == nil {
		skip = []uuid.UUID{}
	}
	var out []workqueue.Link
	err := q.exec(ctx, "read queued links", func(ctx context.Context) error {
		out = out[:0]
		rows, err := q.g.pool.Query(ctx, pullSQL, host, rawUUIDs(skip), n)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			l := workqueue.Link{Host: host}
			var depth int32
			if err := rows.Scan(&l.ID, &depth, &l.URL, &l.RetrievedAt, &l.ETag, &l.LastModified); err != nil {
				return err
			}
			l.Depth = int(depth)
			l.RetrievedAt = l.RetrievedAt.UTC()
			out = append(out, l)
		}
		return rows.Err()
	})
	if err == nil {
		// Joined with links: these are stored (see knownLinks).
		ids := make(uuidArray, len(out))
		for i, l := range out {
			ids[i] = l.ID
		}
		q.g.known.add(ids...)
	}
	return out, err
}

// Done removes handled links from the queue.
func (q *Queue) Done(ctx context.Context, ids []uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	ids = slices.Clone(ids)
	slices.SortFunc(ids, linkgraph.CompareIDs)
	return q.exec(ctx, "remove handled links", func(ctx context.Context) error {
		_, err := q.g.pool.Exec(ctx, "DELETE FROM crawl_queue WHERE link_id = ANY($1::UUID[])", rawUUIDs(ids))
		return err
	})
}

// Pending reports whether any link is queued, under any host, held or not:
// a crawl is over once nothing is.
func (q *Queue) Pending(ctx context.Context) (bool, error) {
	var any bool
	err := q.exec(ctx, "look for queued links", func(ctx context.Context) error {
		return q.g.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM crawl_queue)").Scan(&any)
	})
	return any, err
}

const heartbeatSQL = `
WITH w AS (
	INSERT INTO crawl_workers (id, seen_at, hosts, hungry) VALUES ($1, now(), $2, $3)
	ON CONFLICT (id) DO UPDATE SET seen_at = now(), hosts = $2, hungry = $3
	RETURNING id
)
SELECT
	1 + (SELECT count(*) FROM crawl_workers WHERE id <> $1 AND seen_at > now() - $4 * INTERVAL '1 microsecond')::INT,
	COALESCE((SELECT min(hosts) FROM crawl_workers
		WHERE id <> $1 AND hungry AND seen_at > now() - $4 * INTERVAL '1 microsecond'), -1)::INT,
	(SELECT count(*) FROM (SELECT 1 FROM crawl_hosts WHERE pending LIMIT $5) p)::INT`

// Heartbeat records worker's status and returns the crawl's: the live
// processes (those seen within alive), the fewest hosts held by another
// that wants more, and the hosts with work. A process holding more than
// one host beyond the hungriest other gives one up, and one that claims
// takes about its share of the hosts, so that hosts spread evenly.
func (q *Queue) Heartbeat(ctx context.Context, worker uuid.UUID, s workqueue.WorkerStatus, alive time.Duration) (workqueue.Status, error) {
	var workers, fewest, pending int32
	err := q.exec(ctx, "heartbeat", func(ctx context.Context) error {
		return q.g.pool.QueryRow(ctx, heartbeatSQL, worker, s.Hosts, s.Hungry, micros(alive), workqueue.MaxCountedHosts).Scan(&workers, &fewest, &pending)
	})
	st := workqueue.Status{Workers: int(workers), FewestHungry: int(fewest), PendingHosts: int(pending)}
	if err != nil {
		return st, err
	}
	q.hungryMu.Lock()
	if q.hungry == nil {
		q.hungry = make(map[uuid.UUID]bool)
	}
	became := s.Hungry && !q.hungry[worker]
	q.hungry[worker] = s.Hungry
	q.hungryMu.Unlock()
	if became {
		// A process has nothing to do: wake the others, so that one
		// holding more than its share gives hosts up now rather than at
		// its next heartbeat.
		err = q.notify(ctx)
	}
	return st, err
}

// Leave removes worker from the processes of the crawl, with those not
// seen for an hour.
func (q *Queue) Leave(ctx context.Context, worker uuid.UUID) error {
	q.hungryMu.Lock()
	delete(q.hungry, worker)
	q.hungryMu.Unlock()
	return q.exec(ctx, "leave", func(ctx context.Context) error {
		_, err := q.g.pool.Exec(ctx, "DELETE FROM crawl_workers WHERE id = $1 OR seen_at < now() - INTERVAL '1 hour'", worker)
		return err
	})
}

// SaveRobots keeps what this process learned of host's robots.txt (a
// decision, or failed attempts and when to try again) for r.TTL, for the
// processes that hold the host after this one.
func (q *Queue) SaveRobots(ctx context.Context, host string, r workqueue.Robots) error {
	var failure *string
	if r.Error != "" {
		failure = &r.Error
	}
	failures := int16(min(max(r.Failures, 0), math.MaxInt16))
	return q.exec(ctx, "save robots.txt", func(ctx context.Context) error {
		_, err := q.g.pool.Exec(ctx, `
			UPDATE crawl_hosts SET robots_origin = $2, robots_basis = $3, robots_body = $4,
				robots_expires = now() + $5 * INTERVAL '1 microsecond',
				robots_failures = $6, robots_error = $7,
				robots_retry_at = now() + $8 * INTERVAL '1 microsecond'
			WHERE host = $1`, host, r.Origin, int16(r.Basis), r.Body, micros(r.TTL), failures, failure, micros(r.Retry))
		return err
	})
}

// WaitForWork waits until another process may have made work available
// (PostgreSQL: a notification on the channel the queue LISTENs to, from
// Enqueue or Release), at most d, or until ctx ends, and reports whether
// a notification came. The first call starts listening and reports a
// notification, so that the caller looks for work once it listens.
func (q *Queue) WaitForWork(ctx context.Context, d time.Duration) (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.listen == nil {
		conn, err := q.g.pool.Acquire(ctx)
		if err != nil {
			return false, fmt.Errorf("postgres queue: listen: %w", err)
		}
		q.queries.Add(1)
		if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
			conn.Release()
			return false, fmt.Errorf("postgres queue: listen: %w", err)
		}
		if !q.g.track(q) {
			_ = conn.Conn().Close(context.Background())
			conn.Release()
			return false, fmt.Errorf("postgres queue: listen: %w", errClosed)
		}
		q.listen = conn
		return true, nil
	}
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	_, err := q.listen.Conn().WaitForNotification(wctx)
	switch {
	case err == nil:
		// Others may have sent many: take them all in one wake-up.
		for {
			short, cancel := context.WithTimeout(ctx, time.Millisecond)
			_, err := q.listen.Conn().WaitForNotification(short)
			cancel()
			if err != nil {
				break
			}
		}
		return true, nil
	case ctx.Err() != nil:
		return false, ctx.Err()
	case wctx.Err() != nil:
		return false, nil // d elapsed
	default:
		// The connection broke: drop it; the next call listens again.
		q.listen.Release()
		q.listen = nil
		q.g.untrack(q)
		return false, fmt.Errorf("postgres queue: wait for notification: %w", err)
	}
}

// Close stops listening. The graph's Close closes the rest.
func (q *Queue) Close() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.listen != nil {
		// A connection interrupted by a timeout mid-wait is not reusable:
		// close it rather than return it to the pool.
		_ = q.listen.Conn().Close(context.Background())
		q.listen.Release()
		q.listen = nil
		q.g.untrack(q)
	}
	return nil
}

// track records that q is about to hold a listening connection, which the
// graph's Close must give back before it closes the pool (which waits for
// every connection), and reports false if the graph is closing. Only
// listening queues are kept, so that a process taking a queue per crawl
// round does not pile them up.
func (g *Graph) track(q *Queue) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ctx.Err() != nil {
		return false // Close has taken, or is about to take, the list
	}
	g.queues = append(g.queues, q)
	return true
}

// untrack forgets q once it has given its connection back.
func (g *Graph) untrack(q *Queue) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.queues = slices.DeleteFunc(g.queues, func(o *Queue) bool { return o == q })
}

// rawUUIDs returns ids as a UUID[] parameter (see uuidArray); a
// uuid.UUID would go through its driver.Valuer, as text, element by
// element. The result is never nil (NULL), even for no ids.
func rawUUIDs(ids []uuid.UUID) uuidArray {
	out := make(uuidArray, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

-- The shared state of crawl processes working on one graph (see the
-- package documentation, "Crawling from several processes").

-- One row per host with queued work, or that had some: its lease and its
-- politeness state. Times are the database's own (now()), never a process's.
CREATE TABLE IF NOT EXISTS crawl_hosts (
	host           TEXT        PRIMARY KEY,
	-- pending: the host may have queued links; only pending hosts are
	-- claimed, through the partial index below.
	pending        BOOLEAN     NOT NULL DEFAULT true,
	owner          UUID,
	lease_expires  TIMESTAMPTZ,
	claimed_at     TIMESTAMPTZ,
	-- The earliest start of the host's next request, whoever sends it.
	next_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
	-- How long the owner's requests may run: a process taking over an
	-- expired lease waits this long past the expiry.
	drain_us       BIGINT      NOT NULL DEFAULT 0,
	robots_origin  TEXT,
	robots_basis   SMALLINT,
	robots_body    BYTEA,
	robots_expires TIMESTAMPTZ
);
CREATE INDEX IF NOT EXISTS crawl_hosts_pending ON crawl_hosts (next_at) WHERE pending;

-- The links due in the crawl, by host; a row is deleted once its page has
-- been handled. A link's row is claimed with its host: only the host's
-- owner reads it.
CREATE TABLE IF NOT EXISTS crawl_queue (
	link_id   UUID        PRIMARY KEY,
	host      TEXT        NOT NULL,
	depth     INT         NOT NULL,
	queued_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS crawl_queue_host ON crawl_queue (host, depth, queued_at);

-- The processes of the crawl, for sharing hosts out fairly: each reports
-- how many hosts it holds and whether it wants more.
CREATE TABLE IF NOT EXISTS crawl_workers (
	id      UUID        PRIMARY KEY,
	seen_at TIMESTAMPTZ NOT NULL,
	hosts   INT         NOT NULL,
	hungry  BOOLEAN     NOT NULL
);

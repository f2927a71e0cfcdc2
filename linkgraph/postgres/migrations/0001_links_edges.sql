-- Links are identified by URL; the ID is a client-generated random UUID so
-- that no sequence is needed (CockroachDB spreads random keys across ranges).
CREATE TABLE IF NOT EXISTS links (
	id           UUID        PRIMARY KEY,
	url          TEXT        NOT NULL UNIQUE,
	-- '0001-01-01 00:00:00Z' (Go's zero time) means never retrieved.
	retrieved_at TIMESTAMPTZ NOT NULL
);

-- Edges are identified by (src, dst); the primary key also serves the range
-- scans by source and RemoveStaleEdges. The foreign keys reject edges to
-- unknown links.
CREATE TABLE IF NOT EXISTS edges (
	src        UUID        NOT NULL REFERENCES links (id),
	dst        UUID        NOT NULL REFERENCES links (id),
	id         UUID        NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL,
	PRIMARY KEY (src, dst)
);

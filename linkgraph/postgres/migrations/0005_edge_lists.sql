-- A page's outgoing edges are one row, keyed by the page, holding three
-- arrays in step and sorted by destination: where each edge leads, its ID
-- and when it was last upserted. A crawl writes a page's edges together,
-- and a row per edge cost PostgreSQL a heap tuple, an index entry and their
-- WAL each: on a crawl of the PostgreSQL documentation (1,169 pages,
-- 12,777 edges) the edge inserts took ten times as long as the same edges
-- written as one row per page, and were most of the database's work.
-- Edges keep their IDs (those written before edge IDs were derived from
-- their ends included) and their times.
CREATE TABLE IF NOT EXISTS edge_lists (
	src     UUID          PRIMARY KEY,
	dsts    UUID[]        NOT NULL,
	ids     UUID[]        NOT NULL,
	updated TIMESTAMPTZ[] NOT NULL
);
INSERT INTO edge_lists (src, dsts, ids, updated)
SELECT src, array_agg(dst ORDER BY dst), array_agg(id ORDER BY dst), array_agg(updated_at ORDER BY dst)
FROM edges GROUP BY src
ON CONFLICT (src) DO NOTHING;
DROP TABLE IF EXISTS edges;

-- A search's page may be found and ranked by parallel workers (pageSQL),
-- which the planner of its statement is told cost nothing: the work they
-- divide, matching and ranking every hit's vectors, is not in its costs.
-- The shared hashes (0008) are read once for a statement and are few, but
-- a table the planner has no statistics of looks large: it gave their
-- scan workers of its own, whose start took 2-4 ms of a search that took
-- 2. They are read by one process.
ALTER TABLE textindex_hashes SET (parallel_workers = 0);

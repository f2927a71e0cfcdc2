-- Content hashes (see 0002): each hash a document has been indexed with,
-- the first document that had it, and whether another document has had it
-- too. A search must leave out every document that is not first of its
-- group of duplicates (canonicalSQL), which took an index lookup per hit:
-- 8 microseconds each, 0.85 s of a search for a word in all of 100,000
-- pages, where every page of a crawl has a hash. Only a document whose hash
-- is shared can be a duplicate, and shared hashes are few: a search reads
-- them once (a hash table of them all), and looks up the group only of a
-- hit that has one. The writer of a document records its hash in the same
-- transaction (IndexBatch); two writers of one new hash at once are
-- serialised by its primary key, so the second marks it shared. A hash is
-- never unmarked: a hash once shared only costs the exact lookup.
CREATE TABLE textindex_hashes (
	content_hash TEXT PRIMARY KEY,
	link_id      UUID NOT NULL,
	shared       BOOL NOT NULL DEFAULT false
);
INSERT INTO textindex_hashes (content_hash, link_id, shared)
SELECT content_hash, (array_agg(link_id ORDER BY link_id))[1], count(*) > 1
FROM textindex_documents
WHERE content_hash IS NOT NULL AND indexed
GROUP BY content_hash;
CREATE INDEX textindex_hashes_shared_idx ON textindex_hashes (content_hash) WHERE shared;

-- Duplicate content (see the textindex package documentation): documents
-- with one content_hash form a group of which only the canonical, the first
-- in canonical order (not a redirect, shortest URL in bytes, URL in byte
-- order, LinkID), is searchable. Here the canonical is worked out when
-- reading, by a lookup in this index per hit, so that a write stays the
-- one upsert statement it was and a group never needs repairing. Rows from
-- before have no hash and are their own canonical until indexed again.
ALTER TABLE textindex_documents ADD COLUMN content_hash TEXT;
ALTER TABLE textindex_documents ADD COLUMN redirect BOOL NOT NULL DEFAULT false;
CREATE INDEX textindex_documents_group_idx
	ON textindex_documents (content_hash, redirect, octet_length(url), (url COLLATE "C"), link_id)
	WHERE content_hash IS NOT NULL AND indexed;

-- One row per document, and per score placeholder (indexed = false) for a
-- page the ranking job scored before the crawler indexed it.
--
-- The text search configuration is named explicitly: 'simple' lower-cases
-- but neither stems nor drops stop words, so a phrase query means the exact
-- words, pages in any language are treated alike, and results agree with
-- the other backends. CockroachDB knows 'simple' too.
--
-- Only the first 131072 characters are indexed: PostgreSQL clamps word
-- positions at 16383 and refuses a tsvector over 1 MB, so longer text could
-- make indexing fail; the stored content is never truncated.
CREATE TABLE textindex_documents (
	link_id    UUID PRIMARY KEY,
	url        TEXT NOT NULL DEFAULT '',
	title      TEXT NOT NULL DEFAULT '',
	content    TEXT NOT NULL DEFAULT '',
	indexed_at TIMESTAMPTZ,
	page_rank  DOUBLE PRECISION NOT NULL DEFAULT 0,
	indexed    BOOL NOT NULL DEFAULT false,
	tsv        TSVECTOR GENERATED ALWAYS AS (
		to_tsvector('simple', left(title || ' ' || content, 131072))
	) STORED
);

CREATE INDEX textindex_documents_tsv_idx ON textindex_documents USING GIN (tsv);

-- Anchor text (see textindex.Weights.Anchor): each document's links with
-- their words (textindex_links, package anchors' encoding), in a table of
-- their own so that the documents' rows, which a search reads for every
-- hit, stay as small as they were; and the anchor text UpdateAnchors
-- computes from them, one row per canonical document that has some, as
-- written (tsv) and as stems (stems), apart from the documents so that
-- refreshing it rewrites no document. Documents of before have no links:
-- their next full fetch or import gives them some.
CREATE TABLE textindex_links (
	link_id UUID PRIMARY KEY,
	links   BYTEA
);
CREATE TABLE textindex_anchors (
	link_id UUID PRIMARY KEY,
	texts   TEXT NOT NULL,
	tsv     TSVECTOR NOT NULL,
	stems   TSVECTOR NOT NULL
);
CREATE INDEX textindex_anchors_tsv_idx ON textindex_anchors USING GIN (tsv);
CREATE INDEX textindex_anchors_stems_idx ON textindex_anchors USING GIN (stems);

-- Anchor text (see textindex.Weights.Anchor): each document's links with
-- their words (links, package anchors' encoding), and the anchor text
-- UpdateAnchors computes from them, one row per canonical document that
-- has some, as written (tsv) and as stems (stems), apart from the
-- documents so that refreshing it rewrites no document. Documents of
-- before have no links: their next full fetch or import gives them some.
ALTER TABLE textindex_documents ADD COLUMN links BYTEA;
CREATE TABLE textindex_anchors (
	link_id UUID PRIMARY KEY,
	texts   TEXT NOT NULL,
	tsv     TSVECTOR NOT NULL,
	stems   TSVECTOR NOT NULL
);

-- Terms found by the program (see vectors.go): tsv is no longer computed
-- by the server from the text but written with each document, as stems
-- is, and so are the anchor texts' vectors. Right after this file, in the
-- same transaction, the program computes both vectors of every document
-- and anchor text of before, each in its language, and then indexes them
-- (fillVectors): building a GIN index once is cheaper than updating it
-- row by row.
ALTER TABLE textindex_documents DROP COLUMN tsv;
ALTER TABLE textindex_documents ADD COLUMN tsv TSVECTOR NOT NULL DEFAULT '';
DROP INDEX textindex_documents_stems_idx;
DROP INDEX textindex_anchors_tsv_idx;
DROP INDEX textindex_anchors_stems_idx;
-- LZ4, where the server was built with it, compresses a page's text
-- several times as fast as the default, pglz (which took a sixth of an
-- indexing server's CPU); the vectors keep pglz, which makes them smaller,
-- and a search reads the vectors of every hit. Values stored before keep
-- their method.
DO $$ BEGIN
	ALTER TABLE textindex_documents ALTER COLUMN content SET COMPRESSION lz4;
	ALTER TABLE textindex_links ALTER COLUMN links SET COMPRESSION lz4;
	ALTER TABLE textindex_anchors ALTER COLUMN texts SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
	NULL;
END $$;

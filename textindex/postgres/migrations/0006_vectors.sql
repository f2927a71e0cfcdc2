-- Terms found by the program (see vectors.go): tsv is no longer computed
-- by the server from the text but written with each document, as stems
-- is, and so are the anchor texts' vectors. Right after this file, in the
-- same transaction, the program computes both vectors of every document
-- and anchor text of before, each in its language, and then indexes them
-- (fillVectors): building a GIN index once is cheaper than updating it
-- row by row.
ALTER TABLE textindex_documents DROP COLUMN tsv;
ALTER TABLE textindex_documents ADD COLUMN tsv TSVECTOR NOT NULL DEFAULT '';
-- A search ranks every hit by its vectors: kept in the row (compressed,
-- out of it only when the row would not fit a page) they are read with
-- it, where out of line each took lookups in the TOAST table (a word in
-- all of 100,000 documents ranked in 119 ms instead of 533). The text,
-- which a search reads for the page it returns only, leaves the row
-- first.
ALTER TABLE textindex_documents ALTER COLUMN tsv SET STORAGE MAIN, ALTER COLUMN stems SET STORAGE MAIN;
ALTER TABLE textindex_anchors ALTER COLUMN tsv SET STORAGE MAIN, ALTER COLUMN stems SET STORAGE MAIN;
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

-- Headings (see textindex.Document.Headings): the text of a page's
-- headings, stored to be returned, and indexed in the vectors, which the
-- program writes, as a field labelled C between the URL path and the text
-- (see vectors.go). Rows from before have none until indexed again; their
-- vectors are those a document without headings gets (no headings take
-- no position), so they are not computed anew as 0006's were.
ALTER TABLE textindex_documents ADD COLUMN headings TEXT NOT NULL DEFAULT '';

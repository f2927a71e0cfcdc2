-- Word forms (see textindex.Weights): stems holds each field's stems, as
-- the program computes them in the document's language (lang), labelled
-- as tsv labels the fields (A title, B URL path, D text). The program
-- fills it for the rows of before, in English, right after this file
-- (backfillStems), in the same transaction.
ALTER TABLE textindex_documents ADD COLUMN lang TEXT NOT NULL DEFAULT '';
ALTER TABLE textindex_documents ADD COLUMN stems TSVECTOR NOT NULL DEFAULT '';
CREATE INDEX textindex_documents_stems_idx ON textindex_documents USING GIN (stems);

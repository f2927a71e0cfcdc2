-- Fields (see textindex.Weights): the tsvector labels the title's words A,
-- the URL path's terms B and the text's D, and a search weighs them with
-- ts_rank's weights. url_terms holds the path's terms as the program
-- splits them (textindex.URLTerms); rows from before get them split here,
-- on ASCII letters and digits (a percent-encoded path is decoded once the
-- page is indexed again). The title and URL are bounded, as the text is,
-- so that the tsvector stays within PostgreSQL's limits.
ALTER TABLE textindex_documents ADD COLUMN url_terms TEXT NOT NULL DEFAULT '';
UPDATE textindex_documents SET url_terms = trim(lower(regexp_replace(
	regexp_replace(url, '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*|[?#].*$', '', 'g'),
	'[^A-Za-z0-9]+', ' ', 'g')))
WHERE url <> '';
DROP INDEX textindex_documents_tsv_idx;
ALTER TABLE textindex_documents DROP COLUMN tsv;
ALTER TABLE textindex_documents ADD COLUMN tsv TSVECTOR GENERATED ALWAYS AS (
	setweight(to_tsvector('simple', left(title, 4096)), 'A') ||
	setweight(to_tsvector('simple', left(url_terms, 4096)), 'B') ||
	setweight(to_tsvector('simple', left(content, 131072)), 'D')
) STORED;
CREATE INDEX textindex_documents_tsv_idx ON textindex_documents USING GIN (tsv);

package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// migrations are applied in order; the database's user_version is the
// number already applied. Append, never edit: files in the field have run
// the old ones.
var migrations = []string{
	`CREATE TABLE docs (
		id        INTEGER PRIMARY KEY,
		link_id   BLOB NOT NULL UNIQUE,
		page_rank REAL NOT NULL DEFAULT 0
	);
	CREATE TABLE bodies (
		id         INTEGER PRIMARY KEY REFERENCES docs (id),
		url        TEXT NOT NULL,
		title      TEXT NOT NULL,
		content    TEXT NOT NULL,
		indexed_at TEXT NOT NULL
	);
	CREATE VIRTUAL TABLE docs_fts USING fts5 (
		body,
		content = '',
		contentless_delete = 1,
		tokenize = "unicode61 remove_diacritics 0 categories 'L* N* M*'"
	);`,
	// Every commit adds an FTS5 segment, and the crawler commits small
	// batches (whatever pages are ready, often one to three), so merging
	// segments is a large share of indexing. FTS5's default merges four
	// segments of a level at a time; sixteen (the most it allows) makes
	// the merge tree shallower: about 13% less CPU to build the 100,000
	// document benchmark index, with no search latency change measurable
	// above the noise of the shared benchmark machine.
	`INSERT INTO docs_fts (docs_fts, rank) VALUES ('automerge', 16);`,
	// Duplicate content (see the textindex package documentation): every
	// LinkID keeps its bodies row, and only the canonical of a
	// content_hash (canon = 1) has text in docs_fts, so a group is indexed
	// and found once. Rows from before have no hash and stay canonical
	// until they are indexed again. The index finds a group's canonical
	// (the lookup every write makes) and its members; it leaves the URL
	// out, since most pages are in no group and only a group's members
	// need comparing, so that every insert maintains as little as
	// possible.
	`ALTER TABLE bodies ADD COLUMN content_hash TEXT;
	ALTER TABLE bodies ADD COLUMN redirect INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE bodies ADD COLUMN canon INTEGER NOT NULL DEFAULT 1;
	CREATE INDEX bodies_group ON bodies (content_hash, canon) WHERE content_hash IS NOT NULL;`,
	// Fields (see textindex.Weights): docs_fts holds a document's title,
	// URL path terms and text in columns of their own, which bm25 weighs.
	// Its text was one column; being contentless it is rebuilt from the
	// stored bodies, so an index gets its fields without a recrawl.
	`DROP TABLE docs_fts;
	CREATE VIRTUAL TABLE docs_fts USING fts5 (
		title, url, body,
		content = '',
		contentless_delete = 1,
		tokenize = "unicode61 remove_diacritics 0 categories 'L* N* M*'"
	);
	INSERT INTO docs_fts (docs_fts, rank) VALUES ('automerge', 16);
	INSERT INTO docs_fts (rowid, title, url, body)
		SELECT id, title, linksrus_url_terms(url), content FROM bodies WHERE canon ORDER BY id;`,
	// Word forms (see textindex.Weights and terms.StemMark): each field's
	// stems, computed by the program in the document's language, in a
	// column of their own, so that bm25 weighs an exact match apart from a
	// match of another form. A stem starts with '_' (terms.StemMark),
	// which the tokenizer keeps in a token (tokenchars) and which the exact
	// columns never hold (linksrus_text turns it into a space there, as it
	// separates words everywhere else), so no exact term equals a stem. Rebuilt from the stored bodies, English
	// for the documents of before, whose language is unknown.
	`ALTER TABLE bodies ADD COLUMN lang TEXT NOT NULL DEFAULT '';
	DROP TABLE docs_fts;
	CREATE VIRTUAL TABLE docs_fts USING fts5 (
		title, url, body, title_stems, url_stems, body_stems,
		content = '',
		contentless_delete = 1,
		tokenize = "unicode61 remove_diacritics 0 categories 'L* N* M*' tokenchars '` + terms.StemMark + `'"
	);
	INSERT INTO docs_fts (docs_fts, rank) VALUES ('automerge', 16);
	INSERT INTO docs_fts (rowid, title, url, body, title_stems, url_stems, body_stems)
		SELECT id, linksrus_text(title), linksrus_url_terms(url), linksrus_text(content),
			linksrus_stems(title, lang), linksrus_stems(linksrus_url_terms(url), lang), linksrus_stems(content, lang)
		FROM bodies WHERE canon ORDER BY id;`,
	// Anchor text (see textindex.Weights.Anchor): each document's links
	// with their words (package anchors' encoding), its URL and language,
	// what UpdateAnchors reads of every document, in a table of their own:
	// read from bodies, whose rows hold the pages' text, they would cost
	// reading all of it (a ranking of the rust documentation took 0.8 s
	// for its anchor text so, where all of it now takes about 0.4); and
	// the anchor text UpdateAnchors computes from them, stored (anchors)
	// and indexed (anchors_fts, as written and as stems, under the rowid
	// of the document's bodies row) apart from docs_fts, so that
	// refreshing it rewrites no document's text. Documents of before have
	// no links (their URL and language are copied): their next full fetch
	// or import gives them some.
	`CREATE TABLE doc_links (
		id    INTEGER PRIMARY KEY,
		url   TEXT NOT NULL,
		lang  TEXT NOT NULL,
		links BLOB
	);
	INSERT INTO doc_links (id, url, lang) SELECT id, url, lang FROM bodies;
	CREATE TABLE anchors (
		id    INTEGER PRIMARY KEY,
		texts TEXT NOT NULL,
		lang  TEXT NOT NULL
	);
	CREATE VIRTUAL TABLE anchors_fts USING fts5 (
		anchor, anchor_stems,
		content = '',
		contentless_delete = 1,
		tokenize = "unicode61 remove_diacritics 0 categories 'L* N* M*' tokenchars '` + terms.StemMark + `'"
	);`,
	// Headings (see textindex.Document.Headings and Weights.Headings): a
	// document's headings, stored with it and indexed as a field of their
	// own, as written and as stems, between the URL and the text (the
	// order of Weights, which bm25 is given the columns' weights in). An
	// FTS5 table takes no new column, so docs_fts is rebuilt from the
	// stored bodies, as for the fields and the word forms. Documents of
	// before have no headings (their text holds them still) until they
	// are indexed again.
	`ALTER TABLE bodies ADD COLUMN headings TEXT NOT NULL DEFAULT '';
	DROP TABLE docs_fts;
	CREATE VIRTUAL TABLE docs_fts USING fts5 (
		title, url, headings, body, title_stems, url_stems, headings_stems, body_stems,
		content = '',
		contentless_delete = 1,
		tokenize = "unicode61 remove_diacritics 0 categories 'L* N* M*' tokenchars '` + terms.StemMark + `'"
	);
	INSERT INTO docs_fts (docs_fts, rank) VALUES ('automerge', 16);
	INSERT INTO docs_fts (rowid, title, url, headings, body, title_stems, url_stems, headings_stems, body_stems)
		SELECT id, linksrus_text(title), linksrus_url_terms(url), linksrus_text(headings), linksrus_text(content),
			linksrus_stems(title, lang), linksrus_stems(linksrus_url_terms(url), lang),
			linksrus_stems(headings, lang), linksrus_stems(content, lang)
		FROM bodies WHERE canon ORDER BY id;`,
}

// migrate brings the schema up to date in one immediate transaction, so
// concurrent openers of a new file apply it exactly once.
// checkSchema fails unless the database's schema is the one this program
// writes, for a reader that may not migrate it.
func checkSchema(ctx context.Context, db *sql.DB) error {
	var version int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if version != len(migrations) {
		return fmt.Errorf("schema version %d, this program reads %d: open it once for writing (a crawl or rank) to migrate it", version, len(migrations))
	}
	return nil
}

func migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: begin: %w", err)
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return fmt.Errorf("migrate: read schema version: %w", err)
	}
	if version > len(migrations) {
		return fmt.Errorf("migrate: schema version %d is newer than this program's %d", version, len(migrations))
	}
	for v := version; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migrate: apply migration %d: %w", v+1, err)
		}
	}
	// PRAGMA takes no bound parameters; the value is our own integer.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, len(migrations))); err != nil {
		return fmt.Errorf("migrate: record schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: commit: %w", err)
	}
	return nil
}
